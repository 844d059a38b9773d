import { type Clock, systemClock, unrefTimer } from "@destination/core";

/**
 * Calls `resync` every `intervalMs` (0 turns it off), on `clock` (the system's by default).
 * The timer does not keep the process alive. Returns the function that stops it.
 */
export function startPeriodicResync(
  intervalMs: number,
  resync: () => void,
  clock: Clock = systemClock,
): () => void {
  if (!(intervalMs > 0)) return () => {};
  const timer = clock.setInterval(resync, intervalMs);
  unrefTimer(timer);
  return () => clock.clearInterval(timer);
}

/** Upstream's `ResyncTime`. */
export const DEFAULT_RESYNC_MS = 10 * 60 * 1000;
