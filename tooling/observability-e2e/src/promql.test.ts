import { describe, expect, it } from "vitest";
import { expandDashboardVariables, metricNames, withoutThreshold } from "./promql.js";

describe("withoutThreshold", () => {
  it("drops a final comparison with a number", () => {
    expect(withoutThreshold('max by (pod) (x{job="a"}) > 0.5')).toBe('max by (pod) (x{job="a"})');
    expect(withoutThreshold("up == 0")).toBe("up");
    expect(withoutThreshold("sum(rate(x[5m])) > 734003200")).toBe("sum(rate(x[5m]))");
  });

  it("is undefined without one", () => {
    expect(withoutThreshold('absent(up{job="a"})')).toBeUndefined();
  });
});

describe("metricNames", () => {
  it("reads selectors and __name__ alternatives, not functions", () => {
    expect(
      metricNames(
        'sum by (pod) (increase({__name__=~"a_total|b_total",job=~"x"}[5m])) / on (pod) c{d="e{"} + rate(f[1m])',
      ),
    ).toEqual(["a_total", "b_total", "c", "f"]);
  });
});

describe("expandDashboardVariables", () => {
  it("replaces the rate interval before $job and $pod", () => {
    expect(
      expandDashboardVariables('rate(x{job=~"$job",pod=~"$pod"}[$__rate_interval])', {
        job: "j",
        pod: ".*",
        rateInterval: "15s",
      }),
    ).toBe('rate(x{job=~"j",pod=~".*"}[15s])');
  });
});
