import { describe, expect, it } from "vitest";
import { percentile, round, slope, sumMetric, summarize } from "./stats.js";

describe("percentile", () => {
  it("interpolates between closest ranks", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10, 20, 30, 40, 50], 50)).toBe(30);
    expect(percentile([10, 20, 30, 40, 50], 25)).toBe(20);
    // rank 0.99 × 4 = 3.96: 40 + 0.96 × 10
    expect(percentile([10, 20, 30, 40, 50], 99)).toBeCloseTo(49.6, 10);
  });

  it("is the minimum at p0 and the maximum at p100, whatever the input order", () => {
    const samples = [5, 1, 9, 3, 7];
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 100)).toBe(9);
    expect(samples).toEqual([5, 1, 9, 3, 7]);
  });

  it("handles one sample and no samples", () => {
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });

  it("p99 of 1..100 is 99.01", () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(samples, 99)).toBeCloseTo(99.01, 10);
  });

  it("rejects percentiles outside 0–100", () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("reports count, min, median, p99, max and mean", () => {
    const s = summarize([4, 1, 3, 2]);
    expect(s).toMatchObject({ count: 4, min: 1, median: 2.5, max: 4, mean: 2.5 });
    expect(s.p99).toBeCloseTo(3.97, 10);
  });

  it("is all NaN for no samples", () => {
    const s = summarize([]);
    expect(s.count).toBe(0);
    expect(s.median).toBeNaN();
    expect(s.min).toBeNaN();
    expect(s.max).toBeNaN();
  });
});

describe("round", () => {
  it("keeps three decimals below 10, one below 1000, none above", () => {
    expect(round(1.23456)).toBe(1.235);
    expect(round(123.456)).toBe(123.5);
    expect(round(12345.6)).toBe(12346);
    expect(round(Number.NaN)).toBeNaN();
  });
});

describe("sumMetric", () => {
  const text = [
    "# HELP endpoint_updates_queue_overflow A counter",
    "# TYPE endpoint_updates_queue_overflow counter",
    'endpoint_updates_queue_overflow{service="a.ns.svc.cluster.local:80"} 2',
    'endpoint_updates_queue_overflow{service="b.ns.svc.cluster.local:80"} 3',
    'endpoint_updates_queue_overflow_total{service="x"} 100',
    "endpoints_subscribers 4",
    "",
  ].join("\n");

  it("sums every series of exactly that name", () => {
    expect(sumMetric(text, "endpoint_updates_queue_overflow")).toBe(5);
    expect(sumMetric(text, "endpoints_subscribers")).toBe(4);
  });

  it("is 0 for an absent metric", () => {
    expect(sumMetric(text, "profile_updates_queue_overflow")).toBe(0);
  });
});

describe("slope", () => {
  it("is the least-squares slope of y over x", () => {
    expect(
      slope([
        [1, 12],
        [10, 30],
        [50, 110],
      ]),
    ).toBeCloseTo(2, 10);
    // Noisy points: the fit, not the endpoints' difference.
    expect(
      slope([
        [0, 1],
        [1, 2],
        [2, 2],
        [3, 4],
      ]),
    ).toBeCloseTo(0.9, 10);
  });

  it("is NaN with fewer than two sizes or one repeated size", () => {
    expect(slope([[1, 5]])).toBeNaN();
    expect(
      slope([
        [2, 1],
        [2, 3],
      ]),
    ).toBeNaN();
  });
});
