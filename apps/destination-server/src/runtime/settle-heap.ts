// The initial lists leave the heap larger than what the caches hold: the young generation grown
// to its limit, and old-space pages freed since but kept by V8 for reuse. V8 shrinks both only
// once its memory reducer decides the process is idle, and a regular major GC gives none of it
// back. V8's "last resort" collection (full collections that also shrink the new space and
// release free pages), run once when the server is ready, returns that memory at once.
// Measured on a 10k-pod cluster in BENCHMARKS.md (finding "Idle memory after start").

import type { Logger } from "@destination/core";

/** V8's `gc()`, present when node runs with `--expose-gc` (the binary's default flags). */
type ExposedGc = (options?: {
  type?: "major" | "minor";
  execution?: "sync" | "async";
  flavor?: "regular" | "last-resort";
}) => void;

/**
 * Collects the heap once, in a macrotask of its own after `ready` is answered, when node exposes
 * `gc()`; a no-op otherwise (an embedding without the flag). What it freed goes to the log.
 */
export function settleHeapAfterStart(logger: Logger): void {
  const gc = (globalThis as { gc?: ExposedGc }).gc;
  if (typeof gc !== "function") return;
  setImmediate(() => {
    const before = process.memoryUsage();
    const t0 = performance.now();
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    const after = process.memoryUsage();
    logger.info("heap settled after start", {
      ms: Math.round(performance.now() - t0),
      heapUsedMiB: Math.round(after.heapUsed / 2 ** 20),
      freedMiB: Math.round((before.heapUsed - after.heapUsed) / 2 ** 20),
      rssMiB: Math.round(after.rss / 2 ** 20),
      rssReturnedMiB: Math.round((before.rss - after.rss) / 2 ** 20),
    });
  });
}
