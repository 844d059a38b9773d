// The alert rules as promtool and the Prometheus operator read them.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { alertRules, KIT_FILES, readYaml, ruleGroups } from "../src/kit.js";
import { promtool } from "../src/promtool.js";

const scratch = mkdtempSync(join(tmpdir(), "destination-alerts-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const GENERATOR = fileURLToPath(new URL("../bin/prometheus-rule.mjs", import.meta.url));

describe("alerts.yaml", () => {
  it("passes promtool check rules, every alert counted", () => {
    const run = promtool(["check", "rules", KIT_FILES.alerts]);
    expect(run.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
    expect(run.status).toBe(0);
  });

  it("passes its promtool unit tests", () => {
    const run = promtool(["test", "rules", KIT_FILES.alertTests]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain("SUCCESS");
  });

  it("has a unit test where each alert fires and one where it stays silent", () => {
    const tests = readYaml<{
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    }>(KIT_FILES.alertTests).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const { alert } of alertRules()) {
      const cases = tests.filter((t) => t.alertname === alert);
      expect(
        cases.some((c) => (c.exp_alerts ?? []).length > 0),
        `${alert} fires`,
      ).toBe(true);
      expect(
        cases.some((c) => (c.exp_alerts ?? []).length === 0),
        `${alert} silent`,
      ).toBe(true);
    }
  });

  // The unit tests would notice a changed threshold: the same tests against a copy of the rules
  // with one alert's expression scaled down fail.
  it("fails its unit tests when a threshold moves", () => {
    const rules = readFileSync(KIT_FILES.alerts, "utf8");
    const raised = rules.replace(
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_eventloop_lag_p99_seconds * 0.1",
    );
    expect(raised).not.toBe(rules);
    writeFileSync(join(scratch, "alerts.yaml"), raised);
    copyFileSync(KIT_FILES.alertTests, join(scratch, "alerts.test.yaml"));
    const run = promtool(["test", "rules", join(scratch, "alerts.test.yaml")]);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("DestinationEventLoopDelayHigh");
  });

  it("gives every alert a severity, a summary, a description and its runbook section", () => {
    const readme = readFileSync(KIT_FILES.readme, "utf8");
    for (const rule of alertRules()) {
      expect(["critical", "warning"], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
      const anchor = rule.alert.toLowerCase();
      expect(rule.annotations?.runbook_url).toBe(
        `https://github.com/linkerd-destination/destination/blob/main/deploy/observability/README.md#${anchor}`,
      );
      // GitHub's anchor of a heading "### DestinationServerDown" is "#destinationserverdown".
      expect(readme, `README section for ${rule.alert}`).toMatch(
        new RegExp(`^### ${rule.alert}$`, "m"),
      );
    }
  });

  it("keeps its groups under destination.* (an audit group is added the same way)", () => {
    for (const group of ruleGroups()) expect(group.name).toMatch(/^destination\.[a-z]+$/);
  });
});

describe("prometheus-rule.yaml", () => {
  it("is a PrometheusRule whose groups are alerts.yaml's", () => {
    const resource = readYaml<{
      apiVersion: string;
      kind: string;
      spec: { groups: unknown };
    }>(KIT_FILES.prometheusRule);
    expect(resource.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(resource.kind).toBe("PrometheusRule");
    expect(resource.spec.groups).toEqual(ruleGroups());
  });

  it("is what the generator writes from alerts.yaml", () => {
    const run = spawnSync(process.execPath, [GENERATOR, "--check"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
  });

  it("passes promtool check rules once unwrapped (what the operator hands Prometheus)", () => {
    const resource = readYaml<{ spec: { groups: unknown } }>(KIT_FILES.prometheusRule);
    const file = join(scratch, "unwrapped.yaml");
    writeFileSync(file, JSON.stringify({ groups: resource.spec.groups }));
    const run = promtool(["check", "rules", file]);
    expect(run.status, run.output).toBe(0);
  });
});
