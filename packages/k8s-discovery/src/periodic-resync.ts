/**
 * Calls `resync` every `intervalMs` (0 turns it off). The timer does not keep
 * the process alive. Returns the function that stops it.
 */
export function startPeriodicResync(intervalMs: number, resync: () => void): () => void {
  if (!(intervalMs > 0)) return () => {};
  const timer = setInterval(resync, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Upstream's `ResyncTime`. */
export const DEFAULT_RESYNC_MS = 10 * 60 * 1000;
