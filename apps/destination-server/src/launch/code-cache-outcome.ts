import type { CodeCacheOutcome } from "./code-cached-script.js";

// Where the launcher leaves the outcome of its code cache for the server's log: the launcher runs
// before the bundle, which holds the logger, and the two share no module instance.
const CODE_CACHE_OUTCOME = Symbol.for("destination.codeCacheOutcome");

type Holder = Record<symbol, CodeCacheOutcome | undefined>;

/** The launcher's side: what became of the code cache of the bundle it is about to run. */
export function recordCodeCacheOutcome(outcome: CodeCacheOutcome): void {
  (globalThis as Holder)[CODE_CACHE_OUTCOME] = outcome;
}

/** The launcher's code cache outcome, or undefined when the server was not started by it. */
export function codeCacheOutcome(): CodeCacheOutcome | undefined {
  return (globalThis as Holder)[CODE_CACHE_OUTCOME];
}
