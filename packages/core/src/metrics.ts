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

/** A stable key for a label set: sorted `k=v` pairs. */
export function labelKey(labels: MetricLabels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(",");
}
