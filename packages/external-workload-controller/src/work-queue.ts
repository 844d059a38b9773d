import { type Clock, systemClock } from "@destination/core";
import { noopQueueMetrics, type QueueMetrics } from "./queue-metrics.js";

/** Per-item retry delay: 5 ms doubling to 1000 s, client-go's controller default. */
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 1_000_000;

/**
 * A queue of Service keys with client-go's work-queue rules: a key is queued at most once, a
 * key being worked on is not handed out again until `done` (an add meanwhile queues it after),
 * and failed keys come back after a per-key exponential delay.
 */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #metrics: QueueMetrics;
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Map<string, number>();
  readonly #addedAt = new Map<string, number>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, unknown>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #shutDown = false;

  constructor(options: { clock?: Clock; metrics?: QueueMetrics } = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#metrics = options.metrics ?? noopQueueMetrics;
    this.#metrics.inProgress(() => {
      const now = this.#clock.now();
      let unfinished = 0;
      let longest = 0;
      for (const started of this.#processing.values()) {
        unfinished += now - started;
        longest = Math.max(longest, now - started);
      }
      return { unfinishedSeconds: unfinished / 1000, longestSeconds: longest / 1000 };
    });
  }

  get length(): number {
    return this.#queue.length;
  }

  add(key: string): void {
    if (this.#shutDown || this.#dirty.has(key)) return;
    this.#metrics.added();
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Queues the key again after its retry delay, which doubles with each failure. */
  addRateLimited(key: string): void {
    if (this.#shutDown || this.#delayed.has(key)) return;
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.#metrics.retried();
    const delay = Math.min(BASE_DELAY_MS * 2 ** failures, MAX_DELAY_MS);
    const timer = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delay);
    this.#delayed.set(key, timer);
  }

  /** How many times the key was queued again after a failure since its last `forget`. */
  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** The next key, once there is one; `undefined` once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.#take();
    if (key !== undefined || this.#shutDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    const started = this.#processing.get(key);
    if (started !== undefined) this.#metrics.worked((this.#clock.now() - started) / 1000);
    this.#processing.delete(key);
    if (this.#dirty.has(key)) this.#push(key);
  }

  /** Drops every queued and delayed key (the Lease was lost); keys in progress finish once. */
  clear(): void {
    for (const timer of this.#delayed.values()) this.#clock.clearTimeout(timer);
    this.#delayed.clear();
    this.#failures.clear();
    this.#dirty.clear();
    this.#addedAt.clear();
    this.#queue.length = 0;
    this.#metrics.depth(0);
  }

  shutDown(): void {
    this.clear();
    this.#shutDown = true;
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }

  #push(key: string): void {
    this.#queue.push(key);
    this.#metrics.depth(this.#queue.length);
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter(this.#take());
  }

  #take(): string | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    this.#metrics.depth(this.#queue.length);
    const now = this.#clock.now();
    this.#metrics.waited((now - (this.#addedAt.get(key) ?? now)) / 1000);
    this.#addedAt.delete(key);
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    return key;
  }
}
