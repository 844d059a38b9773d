// A MetricsRegistry for tests: keeps every series in memory so a test can assert what a
// scraper would read.

import {
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  labelKey,
  type MetricLabels,
  type MetricsRegistry,
} from "@destination/core";

/**
 * A registry that keeps values in memory, for tests that assert what a scraper would read.
 * `value(name, labels)` returns the current value of a series, undefined when it does not exist.
 */
export class InMemoryMetrics implements MetricsRegistry {
  readonly #series = new Map<string, Map<string, number>>();

  value(name: string, labels: MetricLabels = {}): number | undefined {
    return this.#series.get(name)?.get(labelKey(labels));
  }

  /** Every series of a metric, as label-key → value. */
  series(name: string): ReadonlyMap<string, number> {
    return this.#series.get(name) ?? new Map();
  }

  gauge(name: string): GaugeMetric {
    const s = this.#metric(name);
    return {
      set: (l, v) => void s.set(labelKey(l), v),
      inc: (l, by = 1) => void s.set(labelKey(l), (s.get(labelKey(l)) ?? 0) + by),
      dec: (l, by = 1) => void s.set(labelKey(l), (s.get(labelKey(l)) ?? 0) - by),
      remove: (l) => void s.delete(labelKey(l)),
    };
  }

  counter(name: string): CounterMetric {
    const s = this.#metric(name);
    const inc = (l: MetricLabels, by = 1) =>
      void s.set(labelKey(l), (s.get(labelKey(l)) ?? 0) + by);
    return {
      inc,
      remove: (l) => void s.delete(labelKey(l)),
      bind: (l) => {
        inc(l, 0);
        return { inc: (by = 1) => inc(l, by) };
      },
    };
  }

  histogram(name: string): HistogramMetric {
    const s = this.#metric(`${name}_count`);
    return { observe: (l) => void s.set(labelKey(l), (s.get(labelKey(l)) ?? 0) + 1) };
  }

  collectedGauge(
    name: string,
    _help: string,
    _labelNames: readonly string[],
    collect: () => readonly { labels: MetricLabels; value: number }[],
  ): void {
    this.#collectors.set(name, collect);
  }

  /** Runs a collected gauge as a scrape would. */
  collect(name: string): readonly { labels: MetricLabels; value: number }[] {
    return this.#collectors.get(name)?.() ?? [];
  }

  readonly #collectors = new Map<
    string,
    () => readonly { labels: MetricLabels; value: number }[]
  >();

  #metric(name: string): Map<string, number> {
    let s = this.#series.get(name);
    if (s === undefined) {
      s = new Map();
      this.#series.set(name, s);
    }
    return s;
  }
}
