import type { CounterMetric, GaugeMetric, MetricsRegistry } from "@destination/core";

/** `workload_subscribers` and `workload_updates`, both without labels (see README "Metrics"). */
export class WorkloadMetrics {
  readonly #subscribers: GaugeMetric;
  readonly #updates: CounterMetric;

  constructor(registry: MetricsRegistry) {
    this.#subscribers = registry.gauge(
      "workload_subscribers",
      "Number of listeners subscribed to workloads by ip:port",
      [],
    );
    this.#updates = registry.counter(
      "workload_updates",
      "Number of notification rounds sent to workload listeners",
      [],
    );
    this.#subscribers.set({}, 0);
  }

  setSubscribers(count: number): void {
    this.#subscribers.set({}, count);
  }

  /** One notification round: attach, detach, ExternalWorkload event, opacity flip, initial update. */
  countUpdate(): void {
    this.#updates.inc({});
  }
}
