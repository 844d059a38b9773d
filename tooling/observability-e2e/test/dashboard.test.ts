// dashboard.json as Grafana imports it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dashboardQueries, KIT_FILES } from "../src/kit.js";

interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { y: number };
  datasource?: { uid: string };
  targets?: { datasource: { uid: string } }[];
}
const AUDIT_METRICS = [
  "destination_audit_runs_total",
  "destination_audit_duration_seconds",
  "destination_audit_streams_checked",
  "destination_audit_divergent_streams",
  "destination_audit_divergent_endpoints_total",
  "destination_audit_divergent_profiles_total",
];
const dashboard = JSON.parse(readFileSync(KIT_FILES.dashboard, "utf8")) as {
  uid: string;
  title: string;
  templating: { list: Variable[] };
  panels: Panel[];
};

/** Grafana's reference to the datasource variable, as a panel's datasource uid. */
const DATASOURCE_VARIABLE = ["$", "{datasource}"].join("");

describe("dashboard.json", () => {
  it("takes its data source, job and pod as variables", () => {
    const byName = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(byName.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(byName.get("job")).toMatchObject({ type: "query" });
    expect(byName.get("pod")).toMatchObject({ type: "query", includeAll: true, allValue: ".*" });
    for (const panel of dashboard.panels.filter((p) => p.type !== "row")) {
      expect(panel.datasource?.uid).toBe(DATASOURCE_VARIABLE);
      for (const target of panel.targets ?? [])
        expect(target.datasource.uid).toBe(DATASOURCE_VARIABLE);
    }
  });

  it("filters every query by the job and pod variables", () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    for (const q of queries) {
      const selectors = q.expr.match(/\{[^}]*\}/g) ?? [];
      expect(selectors.length, `${q.panel} ${q.refId}`).toBeGreaterThan(0);
      for (const s of selectors)
        expect(s, `${q.panel} ${q.refId}`).toContain('job=~"$job",pod=~"$pod"');
    }
  });

  it("has unique panel ids", () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // The self-audit's series (apps/destination-server/src/audit/audit-metrics.ts,
  // AUDIT_METRIC_NAMES) get the last row, and no other row reads them.
  it("ends with an Audit row whose panels read every self-audit metric", () => {
    const rows = dashboard.panels.filter((p) => p.type === "row");
    const audit = dashboard.panels.slice(dashboard.panels.indexOf(rows.at(-1) as Panel));
    expect(audit[0]?.title).toBe("Audit");
    const auditQueries = JSON.stringify(audit);
    for (const name of AUDIT_METRICS) expect(auditQueries, name).toContain(name);
    const others = JSON.stringify(dashboard.panels.slice(0, -audit.length));
    expect(others).not.toContain("destination_audit_");
    // After "Process": ids follow on.
    expect(audit[0]?.id).toBe(
      Math.max(...dashboard.panels.slice(0, -audit.length).map((p) => p.id)) + 1,
    );
    for (const [i, p] of audit.entries()) {
      expect(p.id, p.title).toBe((audit[0]?.id ?? 0) + i);
      expect(p.gridPos.y, p.title).toBeGreaterThanOrEqual(audit[0]?.gridPos.y ?? 0);
    }
  });
});
