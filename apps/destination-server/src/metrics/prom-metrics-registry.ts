import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricLabels,
  MetricsRegistry,
} from "@destination/core";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { SeriesStore } from "./series-store.js";

type Collect = () => readonly { labels: MetricLabels; value: number }[];

/**
 * The packages' metrics seam backed by prom-client. Asking twice for one name returns the same
 * metric (two watchers, or a local and a remote cluster, share series), and collected gauges of
 * one name add their series together.
 */
export class PromMetricsRegistry implements MetricsRegistry {
  readonly #registry: Registry;
  readonly #metrics = new Map<string, unknown>();
  readonly #collectors = new Map<string, Collect[]>();

  constructor(registry: Registry) {
    this.#registry = registry;
  }

  gauge(name: string, help: string, labelNames: readonly string[]): GaugeMetric {
    const store = this.#once(name, () => {
      const series = new SeriesStore(labelNames);
      new Gauge({
        name,
        help,
        labelNames,
        registers: [this.#registry],
        collect() {
          this.reset();
          for (const { labels, value } of series.values()) this.set(labels, value);
        },
      });
      return series;
    });
    return {
      set: (labels, value) => store.set(labels, value),
      inc: (labels, by = 1) => store.addDelta(labels, by),
      dec: (labels, by = 1) => store.addDelta(labels, -by),
      remove: (labels) => store.remove(labels),
    };
  }

  counter(name: string, help: string, labelNames: readonly string[]): CounterMetric {
    const store = this.#once(name, () => {
      const series = new SeriesStore(labelNames);
      new Counter({
        name,
        help,
        labelNames,
        registers: [this.#registry],
        collect() {
          this.reset();
          for (const { labels, value } of series.values()) this.inc(labels, value);
        },
      });
      return series;
    });
    return {
      inc: (labels, by = 1) => store.increment(labels, by),
      remove: (labels) => store.remove(labels),
    };
  }

  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): HistogramMetric {
    const histogram = this.#once(
      name,
      () =>
        new Histogram({
          name,
          help,
          labelNames,
          buckets: [...buckets],
          registers: [this.#registry],
        }),
    );
    return { observe: (labels, value) => histogram.observe(labels, value) };
  }

  collectedGauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: Collect,
  ): void {
    const collectors = this.#collectors.get(name);
    if (collectors !== undefined) {
      collectors.push(collect);
      return;
    }
    const all: Collect[] = [collect];
    this.#collectors.set(name, all);
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.#registry],
      collect() {
        this.reset();
        for (const c of all) for (const { labels, value } of c()) this.set(labels, value);
      },
    });
  }

  #once<M>(name: string, make: () => M): M {
    const existing = this.#metrics.get(name);
    if (existing !== undefined) return existing as M;
    const metric = make();
    this.#metrics.set(name, metric);
    return metric;
  }
}
