// The files of deploy/observability, read as an operator's tools read them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const KIT_DIR = fileURLToPath(new URL("../../../deploy/observability/", import.meta.url));

export const KIT_FILES = {
  alerts: `${KIT_DIR}alerts.yaml`,
  alertTests: `${KIT_DIR}alerts.test.yaml`,
  prometheusRule: `${KIT_DIR}prometheus-rule.yaml`,
  podMonitor: `${KIT_DIR}pod-monitor.yaml`,
  dashboard: `${KIT_DIR}dashboard.json`,
  readme: `${KIT_DIR}README.md`,
} as const;

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly AlertRule[];
}

export function readYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8")) as T;
}

/** The rule groups of alerts.yaml, the one declaration of the alerts. */
export function ruleGroups(): RuleGroup[] {
  return readYaml<{ groups: RuleGroup[] }>(KIT_FILES.alerts).groups;
}

export function alertRules(): AlertRule[] {
  return ruleGroups().flatMap((g) => g.rules);
}

export interface DashboardQuery {
  readonly panel: string;
  readonly refId: string;
  readonly expr: string;
}

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly refId: string; readonly expr: string }[];
  readonly panels?: readonly Panel[];
}

/** Every query of every panel of dashboard.json, rows' nested panels included. */
export function dashboardQueries(): DashboardQuery[] {
  const dashboard = JSON.parse(readFileSync(KIT_FILES.dashboard, "utf8")) as { panels: Panel[] };
  const walk = (panels: readonly Panel[]): DashboardQuery[] =>
    panels.flatMap((p) => [
      ...(p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: t.expr })),
      ...walk(p.panels ?? []),
    ]);
  return walk(dashboard.panels);
}
