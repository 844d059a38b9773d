import type { CounterMetric, MetricsRegistry } from "@destination/core";

/** The per-stream queue overflow counters (README "Metrics"); upstream's names have no `_total`. */
export interface QueueOverflowMetrics {
  readonly endpoints: CounterMetric;
  readonly profiles: CounterMetric;
  readonly endpointProfiles: CounterMetric;
}

export function queueOverflowMetrics(registry: MetricsRegistry): QueueOverflowMetrics {
  return {
    endpoints: registry.counter(
      "endpoint_updates_queue_overflow",
      "A counter incremented whenever the endpoint updates queue overflows",
      ["service"],
    ),
    profiles: registry.counter(
      "profile_updates_queue_overflow",
      "A counter incremented whenever the profile updates queue overflows",
      ["fqn", "port"],
    ),
    endpointProfiles: registry.counter(
      "endpoint_profile_updates_queue_overflow",
      "A counter incremented whenever the endpoint profile updates queue overflows",
      [],
    ),
  };
}
