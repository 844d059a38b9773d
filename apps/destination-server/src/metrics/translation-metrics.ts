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
  // One label object per kind, made once, and every series shown from the start.
  const labels = new Map(KINDS.map((kind) => [kind, { kind }]));
  for (const kind of KINDS) counter.inc(labels.get(kind) ?? { kind }, 0);
  return { translated: (kind) => counter.inc(labels.get(kind) ?? { kind }) };
}
