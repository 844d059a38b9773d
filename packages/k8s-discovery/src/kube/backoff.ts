/** Capped exponential backoff with full jitter. */
export interface BackoffPolicy {
  /** Ceiling of the first delay. */
  readonly baseMs: number;
  /** No delay is longer. */
  readonly capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 30_000 };

/**
 * The delay before retry number `attempt` (0 for the first retry): uniformly random below
 * `min(capMs, baseMs * 2^attempt)`. Full jitter spreads the reconnects of many clients after an
 * API server restart instead of synchronising them.
 */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  // 2^31 already exceeds any sensible cap; the bound keeps the power finite.
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(attempt, 0), 31));
  return Math.floor(random() * ceiling);
}

/** The retry counter of one loop: `next()` after a failure, `reset()` after a healthy run. */
export class Backoff {
  readonly #policy: BackoffPolicy;
  readonly #random: () => number;
  #attempt = 0;

  constructor(policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random) {
    this.#policy = policy;
    this.#random = random;
  }

  next(): number {
    return backoffDelayMs(this.#attempt++, this.#policy, this.#random);
  }

  reset(): void {
    this.#attempt = 0;
  }

  /** Failures since the last reset. */
  get attempts(): number {
    return this.#attempt;
  }
}
