/**
 * What one translation produced: an endpoints `add` or `remove` set (shared by every Get stream
 * of a filter group and zone), a service `profile` or an `endpoint_profile` (one per GetProfile
 * stream).
 */
export type TranslationKind = "add" | "remove" | "profile" | "endpoint_profile";

/**
 * Told of every translation as it is done, before anything is encoded. A translation is the
 * work a cluster change costs per message; counting them shows which changes cost any at all
 * (the server exposes them as `destination_translations_total`).
 */
export interface TranslationCounter {
  translated(kind: TranslationKind): void;
}

/** The counter of a translator nobody counts. */
export const uncountedTranslations: TranslationCounter = { translated() {} };
