// How many reconnect attempts a capped exponential backoff with full jitter can plausibly make
// within a window: the bound the restart test holds the list/watch loops to.

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

/** k8s-discovery's default (its README): 250 ms doubling up to 30 s, full jitter. */
export const DEFAULT_LOOP_BACKOFF: BackoffPolicy = { baseMs: 250, capMs: 30_000 };

/**
 * The largest number of delays `n` that can fit in `windowMs` with probability at least
 * `epsilon`. Delay k (from the first retry) is uniform below `min(cap, base × 2^k)`; n delays
 * fit only if each of them does, so P(n fit) ≤ ∏ min(1, window / ceiling_k), taken from k = 0
 * (the shortest ceilings: the worst case, whatever the loop's attempt count when the window
 * opens).
 */
export function maxPlausibleDelays(
  windowMs: number,
  policy: BackoffPolicy = DEFAULT_LOOP_BACKOFF,
  epsilon = 1e-6,
): number {
  let p = 1;
  for (let n = 0; ; n++) {
    const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(n, 31));
    const next = p * Math.min(1, windowMs / ceiling);
    if (next < epsilon) return n;
    p = next;
  }
}

/**
 * The most requests a loop may send from the moment a restarted API server first answers: the
 * attempts that fail while it is not ready yet (`notReadyMs`), each after a backoff delay, then
 * the one that succeeds. n + 1 failed attempts are n delays apart, and the successful one
 * follows one more delay: at most `maxPlausibleDelays(notReadyMs) + 2` requests.
 */
export function maxRequestsAfterRestart(
  notReadyMs: number,
  policy: BackoffPolicy = DEFAULT_LOOP_BACKOFF,
  epsilon = 1e-6,
): number {
  return maxPlausibleDelays(notReadyMs, policy, epsilon) + 2;
}
