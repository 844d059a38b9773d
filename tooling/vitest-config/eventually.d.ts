/** How long a condition may take to hold on a loaded two-core machine before a test fails. */
export declare const CONDITION_DEADLINE_MS: number;

/**
 * Calls `check` until it returns without throwing (a resolved promise for an async check) and
 * returns what it returned; after `timeoutMs` (default `CONDITION_DEADLINE_MS`) fails with the
 * check's last error.
 */
export declare function eventually<T>(
  check: () => T | Promise<T>,
  options?: { timeoutMs?: number; intervalMs?: number },
): Promise<T>;
