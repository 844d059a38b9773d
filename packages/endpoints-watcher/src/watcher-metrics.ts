import type { CounterMetric, GaugeMetric, MetricLabels, MetricsRegistry } from "@destination/core";

const GROUP_LABEL_NAMES = ["cluster", "namespace", "service", "port", "hostname", "nodename"];

/** The `endpoints_*` series of one filtered listener group. */
export interface GroupSeries {
  subscribers(count: number): void;
  /** A publish or a no-endpoints round: counted, with the group's resulting state. */
  published(pods: number, exists: boolean): void;
  /** The state a joining listener finds (upstream leaves the gauges until the next publish). */
  state(pods: number, exists: boolean): void;
  delete(): void;
}

/** The metric families of one EndpointsWatcher. */
export class EndpointsWatcherMetrics {
  readonly #subscribers: GaugeMetric;
  readonly #updates: CounterMetric;
  readonly #pods: GaugeMetric;
  readonly #exists: GaugeMetric;

  constructor(registry: MetricsRegistry) {
    this.#subscribers = registry.gauge(
      "endpoints_subscribers",
      "Number of subscribers to Service endpoints changes.",
      GROUP_LABEL_NAMES,
    );
    this.#updates = registry.counter(
      "endpoints_updates",
      "Number of endpoints updates published to subscribers.",
      GROUP_LABEL_NAMES,
    );
    this.#pods = registry.gauge(
      "endpoints_pods",
      "Number of endpoints the subscribers of a Service port are sent.",
      GROUP_LABEL_NAMES,
    );
    this.#exists = registry.gauge(
      "endpoints_exists",
      "Whether the endpoints of a Service port exist (1) or not (0).",
      GROUP_LABEL_NAMES,
    );
  }

  groupSeries(labels: MetricLabels): GroupSeries {
    const frozen = Object.freeze({ ...labels });
    return {
      subscribers: (count) => this.#subscribers.set(frozen, count),
      published: (pods, exists) => {
        this.#updates.inc(frozen);
        this.#pods.set(frozen, pods);
        this.#exists.set(frozen, exists ? 1 : 0);
      },
      state: (pods, exists) => {
        this.#updates.inc(frozen, 0);
        this.#pods.set(frozen, pods);
        this.#exists.set(frozen, exists ? 1 : 0);
      },
      delete: () => {
        this.#subscribers.remove(frozen);
        this.#updates.remove(frozen);
        this.#pods.remove(frozen);
        this.#exists.remove(frozen);
      },
    };
  }
}
