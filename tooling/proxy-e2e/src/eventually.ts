// Waiting on observable conditions: poll until a check passes or a deadline is reached, then
// fail with what the check saw last. No test sleeps for a fixed time.

export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 20_000, intervalMs = 100 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail})`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
