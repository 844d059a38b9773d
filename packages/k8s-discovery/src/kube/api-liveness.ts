import type { Clock } from "@destination/core";

/**
 * How long a connection to the API server may show no life before it is destroyed (README
 * "Dead connections"). One bound, `silenceTimeoutMs`, drives every check:
 *
 * - TCP keepalive on every socket, idle `keepAliveIdleMs(silence)`: the kernel then probes every
 *   second and gives up after ten unanswered probes (libuv's fixed interval and count), so a
 *   path that died without a reset fails its socket within `max(silence, 11 s)`.
 * - Every request must get its response headers within `silence` (a list: within its deadline,
 *   as the API server encodes a list whole before its first byte).
 * - A list body may not pause for longer than `silence`.
 *
 * 12 s by default: keepalive then idles 2 s, and a dead path is found within about the 9-11 s
 * that node's agent defaults (1 s idle) gave by accident, now on purpose.
 * - A watch must show an event, a bookmark or a byte within `watchSilenceMs(silence)`: the API
 *   server sends a bookmark about once a minute on a quiet watch, so the watch gets that much
 *   longer.
 */
export const DEFAULT_API_SILENCE_TIMEOUT_MS = 12_000;

/** libuv probes a kept-alive socket every second and drops it after ten unanswered probes. */
const KEEPALIVE_PROBING_MS = 10_000;
const MIN_KEEPALIVE_IDLE_MS = 1_000;

/** The API server's bookmark period on a quiet watch (`allowWatchBookmarks=true`). */
export const WATCH_BOOKMARK_PERIOD_MS = 60_000;

/** TCP keepalive idle time: probing then ends within the silence bound (1 s at least). */
export function keepAliveIdleMs(silenceTimeoutMs: number): number {
  return Math.max(MIN_KEEPALIVE_IDLE_MS, silenceTimeoutMs - KEEPALIVE_PROBING_MS);
}

/** How long a watch may show nothing at all: a bookmark period more than the bound. */
export function watchSilenceMs(silenceTimeoutMs: number): number {
  return silenceTimeoutMs + WATCH_BOOKMARK_PERIOD_MS;
}

/**
 * Calls `onSilence` once when `touch()` was not called for `limitMs`. One timer per period at
 * most, re-armed lazily when it fires: a body read in 2 KB chunks does not move a timer per
 * chunk, `touch()` only stores the time.
 */
export class SilenceWatchdog {
  readonly #clock: Clock;
  readonly #limitMs: number;
  readonly #onSilence: () => void;
  #last: number;
  #timer: unknown;
  #done = false;

  constructor(clock: Clock, limitMs: number, onSilence: () => void) {
    this.#clock = clock;
    this.#limitMs = limitMs;
    this.#onSilence = onSilence;
    this.#last = clock.now();
    this.#timer = clock.setTimeout(() => this.#check(), limitMs);
  }

  /** Life was seen now. */
  touch(): void {
    this.#last = this.#clock.now();
  }

  stop(): void {
    this.#done = true;
    this.#clock.clearTimeout(this.#timer);
  }

  #check(): void {
    if (this.#done) return;
    const quietMs = this.#clock.now() - this.#last;
    if (quietMs >= this.#limitMs) {
      this.#done = true;
      this.#onSilence();
      return;
    }
    this.#timer = this.#clock.setTimeout(() => this.#check(), this.#limitMs - quietMs);
  }
}
