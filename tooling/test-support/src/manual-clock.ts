import type { Clock } from "@destination/core";

interface PendingTimer {
  readonly id: number;
  due: number;
  readonly callback: () => void;
  /** The period of an interval; undefined for a timeout. */
  readonly every: number | undefined;
}

/**
 * A clock whose time moves only when a test moves it. `advance(ms)` runs the timers that fall
 * due, earliest first (then in the order they were set), each with `now()` at its due time, and
 * timers those set in turn when they fall due within the same advance. No real time passes, so
 * what a test sees does not depend on how busy the machine is. Work a timer starts
 * asynchronously (a request, a promise) still runs on the event loop: wait for its effect, e.g.
 * for the next timer to be set (`pendingTimers`), before advancing again.
 */
export class ManualClock implements Clock {
  #now: number;
  #lastId = 0;
  readonly #timers = new Map<number, PendingTimer>();

  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    return this.#add(callback, ms, undefined);
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  setInterval(callback: () => void, ms: number): unknown {
    return this.#add(callback, ms, Math.max(1, ms));
  }

  clearInterval(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers set and not yet fired or cleared (an interval counts until it is cleared). */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** How far from now the earliest pending timer is due; undefined when none is pending. */
  get nextDueInMs(): number | undefined {
    const next = this.#earliest();
    return next === undefined ? undefined : next.due - this.#now;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#now = next.due;
      if (next.every === undefined) this.#timers.delete(next.id);
      else next.due += next.every;
      next.callback();
    }
    this.#now = target;
  }

  /** Moves time to the earliest pending timer and runs it; false when none is pending. */
  runNext(): boolean {
    const inMs = this.nextDueInMs;
    if (inMs === undefined) return false;
    this.advance(inMs);
    return true;
  }

  #add(callback: () => void, ms: number, every: number | undefined): number {
    const id = ++this.#lastId;
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.#timers.set(id, { id, due: this.#now + delay, callback, every });
    return id;
  }

  #earliest(): PendingTimer | undefined {
    let earliest: PendingTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (earliest === undefined || timer.due < earliest.due) earliest = timer;
    }
    return earliest;
  }
}
