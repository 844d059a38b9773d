// The suite's waits read as "eventually <what>": a check that returns a value once its condition
// holds (undefined or false until then), on the workspace's shared eventually() and its deadline.
import {
  CONDITION_DEADLINE_MS,
  eventually as waitUntil,
} from "@destination/vitest-config/eventually";

export function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  {
    timeoutMs = CONDITION_DEADLINE_MS,
    intervalMs = 100,
  }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  return waitUntil(
    async () => {
      const value = await check();
      if (value === undefined || value === false) {
        throw new Error(`waiting for ${what} (last: ${JSON.stringify(value)})`);
      }
      return value as T;
    },
    { timeoutMs, intervalMs },
  );
}
