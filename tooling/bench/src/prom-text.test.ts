import { describe, expect, it } from "vitest";
import { deltaOf, seriesOf, sumBy } from "./prom-text.js";

const TEXT = `# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",group="",resource="pods",verb="LIST",version="v1"} 12
apiserver_request_total{code="200",component="apiserver",group="",resource="pods",verb="WATCH",version="v1"} 3
apiserver_request_total{code="410",component="apiserver",group="",resource="pods",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",group="apps",resource="replicasets",verb="LIST",version="v1"} 2
apiserver_request_total_other{resource="pods",verb="LIST"} 99
apiserver_request_duration_seconds_sum{resource="pods",verb="LIST"} 1.5
process_cpu_seconds_total 7
odd{msg="say \\"hi\\"",x="a,b"} 4
`;

describe("seriesOf", () => {
  it("reads the labels and value of each series of exactly that name", () => {
    const series = seriesOf(TEXT, "apiserver_request_total");
    expect(series).toHaveLength(4);
    expect(series[0]).toEqual({
      labels: {
        code: "200",
        component: "apiserver",
        group: "",
        resource: "pods",
        verb: "LIST",
        version: "v1",
      },
      value: 12,
    });
  });

  it("reads a series without labels, and escaped quotes and commas in values", () => {
    expect(seriesOf(TEXT, "process_cpu_seconds_total")).toEqual([{ labels: {}, value: 7 }]);
    expect(seriesOf(TEXT, "odd")).toEqual([{ labels: { msg: 'say "hi"', x: "a,b" }, value: 4 }]);
  });

  it("is empty for an absent metric", () => {
    expect(seriesOf(TEXT, "nope")).toEqual([]);
  });
});

describe("sumBy", () => {
  it("sums by one label over the series matching the filter, every code together", () => {
    expect(sumBy(TEXT, "apiserver_request_total", "resource", { verb: "LIST" })).toEqual(
      new Map([
        ["pods", 13],
        ["replicasets", 2],
      ]),
    );
  });

  it("leaves out series lacking the label", () => {
    expect(sumBy(TEXT, "process_cpu_seconds_total", "resource")).toEqual(new Map());
  });
});

describe("deltaOf", () => {
  it("subtracts per key and drops keys that did not move", () => {
    const before = new Map([
      ["pods", 10],
      ["nodes", 4],
    ]);
    const after = new Map([
      ["pods", 15],
      ["nodes", 4],
      ["services", 2],
    ]);
    expect(deltaOf(before, after)).toEqual(
      new Map([
        ["pods", 5],
        ["services", 2],
      ]),
    );
  });
});
