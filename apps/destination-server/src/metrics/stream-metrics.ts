// The counters the Destination streams keep, registered with their context: queue overflows
// (upstream's) and translations (this project's).
import type { CounterMetric, MetricsRegistry } from "@destination/core";
import type { TranslationCounter, TranslationKind } from "@destination/translators";

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

const KINDS: readonly TranslationKind[] = ["add", "remove", "profile", "endpoint_profile"];

/**
 * `destination_translations_total{kind}` (this project's; README "Metrics"): the translations
 * done for streams. A change that touches nothing a stream watches adds none; one that touches
 * a Service adds one per filter group and zone for Get, one per stream for GetProfile.
 */
export function translationMetrics(registry: MetricsRegistry): TranslationCounter {
  const counter = registry.counter(
    "destination_translations_total",
    "Cluster state translated into a Get update or a GetProfile profile, by kind",
    ["kind"],
  );
  // Every series bound, and so shown, from the start.
  const series = new Map(KINDS.map((kind) => [kind, counter.bind({ kind })]));
  return { translated: (kind) => series.get(kind)?.inc() };
}
