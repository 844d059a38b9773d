import type { CodeCacheOutcome } from "./code-cached-script.js";

/**
 * Where the launcher leaves the outcome of its code cache for the server's log: the launcher runs
 * before the bundle, which holds the logger.
 */
export const CODE_CACHE_OUTCOME: unique symbol = Symbol.for("destination.codeCacheOutcome");

/** The launcher's code cache outcome, or undefined when the server was not started by it. */
export function codeCacheOutcome(): CodeCacheOutcome | undefined {
  return (globalThis as Record<symbol, CodeCacheOutcome | undefined>)[CODE_CACHE_OUTCOME];
}
