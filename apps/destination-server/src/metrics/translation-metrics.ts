import type { MetricsRegistry } from "@destination/core";
import type { TranslationCounter, TranslationKind } from "@destination/translators";

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
