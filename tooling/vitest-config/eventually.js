// One way for every test to wait on a condition it can observe (a scrape, a cache, a file, a
// stream), with one deadline sized for a loaded two-core machine. A deadline is a bound on how
// long a condition may take to come true, never the thing a test measures: a test that passes
// within it passes as fast as the condition allows.
import { vi } from "vitest";

/** How long a condition may take to hold on a loaded two-core machine before a test fails. */
export const CONDITION_DEADLINE_MS = 15_000;

/**
 * Calls `check` until it returns without throwing (a resolved promise for an async check) and
 * returns what it returned; after `timeoutMs` fails with the check's last error.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {{ timeoutMs?: number, intervalMs?: number }} [options]
 * @returns {Promise<T>}
 */
export function eventually(check, options = {}) {
  return vi.waitFor(check, {
    timeout: options.timeoutMs ?? CONDITION_DEADLINE_MS,
    interval: options.intervalMs ?? 10,
  });
}
