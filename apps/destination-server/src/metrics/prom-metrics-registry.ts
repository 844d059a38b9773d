import type {
  BoundCounter,
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricLabels,
  MetricsRegistry,
} from "@destination/core";
import { labelKey } from "@destination/core";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

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
    const gauge = this.#once(
      name,
      () => new Gauge({ name, help, labelNames, registers: [this.#registry] }),
    );
    return {
      set: (labels, value) => gauge.set(labels, value),
      inc: (labels, by = 1) => gauge.inc(labels, by),
      dec: (labels, by = 1) => gauge.dec(labels, by),
      remove: (labels) => gauge.remove(labels),
    };
  }

  counter(name: string, help: string, labelNames: readonly string[]): CounterMetric {
    const { counter, bound } = this.#once(name, () => {
      const bound: BatchedSeries[] = [];
      const counter = new Counter({
        name,
        help,
        labelNames,
        registers: [this.#registry],
        collect() {
          for (const series of bound) series.flushInto(this);
        },
      });
      return { counter, bound };
    });
    return {
      inc: (labels, by = 1) => counter.inc(labels, by),
      remove: (labels) => {
        counter.remove(labels);
        const key = labelKey(labels);
        for (const series of bound) if (series.key === key) series.drop();
      },
      bind: (labels) => {
        const series = new BatchedSeries(labels);
        // prom-client checks the label set here, once, and the series shows from now on.
        counter.inc(labels, 0);
        bound.push(series);
        return series;
      },
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

/**
 * One counter series whose increments are added up here and handed to prom-client when the
 * counter is read (from its `collect`): prom-client hashes and checks the label set on every
 * `inc`, which cost more than the rest of handling a watch event or sending a message
 * (BENCHMARKS.md, "Idle CPU and hot counters"). The value stays prom-client's; this only holds
 * what it has not been told yet, and a series nothing was added to is not created by a flush.
 */
export class BatchedSeries implements BoundCounter {
  readonly key: string;
  #pending = 0;

  constructor(readonly labels: MetricLabels) {
    this.key = labelKey(labels);
  }

  inc(by = 1): void {
    this.#pending += by;
  }

  flushInto(counter: Counter<string>): void {
    if (this.#pending === 0) return;
    counter.inc(this.labels, this.#pending);
    this.#pending = 0;
  }

  /** The series was removed: what it had not handed over goes with it (later ones count anew). */
  drop(): void {
    this.#pending = 0;
  }
}
