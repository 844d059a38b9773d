import type { HistogramMetric, KubeObject, MetricsRegistry } from "@destination/k8s-discovery";
import { InMemoryMetrics } from "@destination/k8s-discovery";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InformerLag, latestUpdateTime } from "./informer-lag.js";

function object(managedFields: { operation?: string; time?: string | null }[]): KubeObject {
  return { kind: "Service", metadata: { name: "web", namespace: "ns", managedFields } };
}

/** Wraps InMemoryMetrics (which keeps only a count per histogram) to keep observed values. */
function recordingMetrics() {
  const store = new InMemoryMetrics();
  const observed: number[] = [];
  const buckets: (readonly number[])[] = [];
  const registry: MetricsRegistry = {
    gauge: (name) => store.gauge(name),
    counter: (name) => store.counter(name),
    collectedGauge: (name, help, labels, collect) =>
      store.collectedGauge(name, help, labels, collect),
    histogram: (name, _help, _labels, b): HistogramMetric => {
      buckets.push(b);
      const inner = store.histogram(name);
      return {
        observe: (l, v) => {
          observed.push(v);
          inner.observe(l, v);
        },
      };
    },
  };
  return { registry, observed, buckets };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("informer lag", () => {
  it("M-1: the latest Update time counts; Apply entries, null and unreadable times do not", () => {
    expect(
      latestUpdateTime(
        object([
          { operation: "Update", time: "2026-08-01T10:00:05Z" },
          { operation: "Apply", time: "2026-08-01T11:00:00Z" },
          { operation: "Update", time: "2026-08-01T10:00:09Z" },
          { operation: "Update", time: null },
          { operation: "Update", time: "yesterday" },
          { operation: "Update", time: "2026-08-01T10:00:01Z" },
        ]),
      ),
    ).toBe(Date.parse("2026-08-01T10:00:09Z"));
    expect(latestUpdateTime(object([{ operation: "Apply", time: "2026-08-01T10:00:00Z" }]))).toBe(
      undefined,
    );
    expect(latestUpdateTime({ metadata: { name: "bare" } })).toBeUndefined();
  });

  it("M-1: observes the seconds since the new latest Update time, with the shared buckets", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse("2026-08-01T10:00:12.5Z"));
    const { registry, observed, buckets } = recordingMetrics();
    const lag = new InformerLag(registry, "services_informer_lag_seconds", "help");
    lag.observeUpdate(
      object([{ operation: "Update", time: "2026-08-01T10:00:00Z" }]),
      object([{ operation: "Update", time: "2026-08-01T10:00:10Z" }]),
    );
    expect(observed).toEqual([2.5]);
    expect(buckets).toEqual([[0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000]]);
  });

  it("M-1: nothing is observed when the latest Update time is unchanged or absent", () => {
    const { registry, observed } = recordingMetrics();
    const lag = new InformerLag(registry, "services_informer_lag_seconds", "help");
    const updated = object([{ operation: "Update", time: "2026-08-01T10:00:00Z" }]);
    lag.observeUpdate(updated, updated);
    lag.observeUpdate(
      updated,
      object([
        { operation: "Update", time: "2026-08-01T10:00:00Z" },
        { operation: "Apply", time: "2026-08-01T10:00:30Z" },
      ]),
    );
    lag.observeUpdate(updated, object([]));
    expect(observed).toEqual([]);
  });
});
