// dashboard.json as Grafana imports it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { dashboardQueries, KIT_FILES } from "../src/kit.js";

interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
}
const dashboard = JSON.parse(readFileSync(KIT_FILES.dashboard, "utf8")) as {
  uid: string;
  title: string;
  templating: { list: Variable[] };
  panels: {
    id: number;
    type: string;
    datasource?: { uid: string };
    targets?: { datasource: { uid: string } }[];
  }[];
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

  it("has unique panel ids and no self-audit metrics yet", () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(JSON.stringify(dashboard)).not.toContain("destination_audit_");
  });
});
