/**
 * The time a component reads and waits on. Components take one as an option, the system clock
 * by default, so that tests can pass a manual clock and move time by hand. Its timer methods
 * have the shape of `LingerTimers`, so a clock also serves as a publisher's linger timers.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Calls `callback` once, `ms` from now; returns the handle `clearTimeout` takes. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Calls `callback` every `ms`; returns the handle `clearInterval` takes. */
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

type NodeTimer = ReturnType<typeof setTimeout>;

/** The real clock: `Date.now()` and the global timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeTimer | undefined),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as NodeTimer | undefined),
};

/**
 * Keeps a timer of the system clock from holding the process alive; a no-op for a handle of
 * another clock.
 */
export function unrefTimer(handle: unknown): void {
  (handle as { unref?: () => void } | undefined)?.unref?.();
}
