/**
 * An address or profile that cannot become a message. Translators catch it, log its message
 * and leave the item out; it never reaches a watcher.
 */
export class TranslationError extends Error {
  override readonly name = "TranslationError";
}
