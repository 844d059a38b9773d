// A minimal metrics seam: packages record through these interfaces and the server backs them
// with prom-client, so no library package depends on a metrics implementation. Names and label
// sets are upstream Linkerd's wherever upstream has the metric, so existing dashboards and
// alerts keep working.

export type MetricLabels = Readonly<Record<string, string>>;

export interface GaugeMetric {
  set(labels: MetricLabels, value: number): void;
  inc(labels: MetricLabels, by?: number): void;
  dec(labels: MetricLabels, by?: number): void;
  /** Deletes one labelled series (a gauge whose group went away). */
  remove(labels: MetricLabels): void;
}

export interface CounterMetric {
  inc(labels: MetricLabels, by?: number): void;
  remove(labels: MetricLabels): void;
  /**
   * One series for a hot path (an event, a message): the series appears at once, at 0, and an
   * increment through it costs an addition. A registry may add the increments up and hand them to
   * the series only when it is read, so the value a scrape sees is always current.
   */
  bind(labels: MetricLabels): BoundCounter;
}

/** A counter series bound to one label set. */
export interface BoundCounter {
  inc(by?: number): void;
}

export interface HistogramMetric {
  observe(labels: MetricLabels, value: number): void;
}

/**
 * Where packages create their metrics. Asking twice for the same name returns the same metric
 * (several watchers share series, and a watcher may be constructed more than once).
 */
export interface MetricsRegistry {
  gauge(name: string, help: string, labelNames: readonly string[]): GaugeMetric;
  counter(name: string, help: string, labelNames: readonly string[]): CounterMetric;
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): HistogramMetric;
  /** A gauge computed when scraped (cache sizes, store sizes). */
  collectedGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: () => readonly { labels: MetricLabels; value: number }[],
  ): void;
}

const noop = () => {};

/** Records nothing: the default wherever no registry is passed. */
export const noopMetrics: MetricsRegistry = {
  gauge: () => ({ set: noop, inc: noop, dec: noop, remove: noop }),
  counter: () => ({ inc: noop, remove: noop, bind: () => ({ inc: noop }) }),
  histogram: () => ({ observe: noop }),
  collectedGauge: noop,
};

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

/** A stable key for a label set: sorted `k=v` pairs. */
export function labelKey(labels: MetricLabels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(",");
}
