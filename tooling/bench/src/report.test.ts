import { describe, expect, it } from "vitest";
import { benchDocument, formatTable, type ScenarioResult } from "./report.js";

const results: ScenarioResult[] = [
  {
    name: "fanout",
    params: { streams: 10_000, connections: 100 },
    samples: 20,
    median_ms: 283.456,
    p99_ms: 457.21,
    ratio_to_limit: 0.97123,
    median_ratio_to_limit: 1.0291,
    extra: { encodes_per_change: 3 },
  },
  {
    name: "scale",
    params: { pods: 10_000 },
    samples: 5,
    median_ms: 597.51,
    p99_ms: 700.2,
    sync_ms: 597.51,
    heap_mb: 67.712,
    rss_mb: 174.55,
  },
];

const meta = {
  startedAt: "2025-01-01T00:00:00.000Z",
  command: "pnpm bench --json out.json",
  quick: false,
  machine: {
    nproc: 2,
    cpuModel: "cpu",
    memoryGiB: 23.4,
    node: "v20.20.2",
    platform: "linux-x64",
    loadAverageStart: [0.1, 0.2, 0.3],
    loadAverageEnd: [1, 0.5, 0.4],
  },
};

describe("benchDocument", () => {
  it("holds one entry per scenario with the required fields, rounded", () => {
    const doc = benchDocument(results, meta);
    expect(doc.version).toBe(1);
    expect(doc.machine.nproc).toBe(2);
    expect(doc.scenarios).toHaveLength(2);
    for (const entry of doc.scenarios) {
      expect(typeof entry.name).toBe("string");
      expect(typeof entry.params).toBe("object");
      expect(typeof entry.median_ms).toBe("number");
      expect(typeof entry.p99_ms).toBe("number");
    }
    const [fan, scale] = doc.scenarios;
    expect(fan).toMatchObject({ median_ms: 283.5, p99_ms: 457.2, ratio_to_limit: 0.971 });
    expect(scale).toMatchObject({ sync_ms: 597.5, heap_mb: 67.7, rss_mb: 174.6 });
    expect(scale?.ratio_to_limit).toBeUndefined();
  });

  it("survives a JSON round trip unchanged", () => {
    const doc = benchDocument(results, meta);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

describe("formatTable", () => {
  it("prints a header, one row per result and the extras below it", () => {
    const lines = formatTable(results).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^scenario\s+params\s+n\s+median_ms\s+p99_ms\s+ratio/);
    expect(lines[2]).toContain("fanout");
    expect(lines[2]).toContain("streams=10000 connections=100");
    expect(lines[2]).toContain("0.971 (med 1.029)");
    expect(lines[3]).toBe("    encodes_per_change=3");
    expect(lines[4]).toContain("scale");
    expect(lines[4]).toContain("67.7");
    expect(lines).toHaveLength(5);
  });
});
