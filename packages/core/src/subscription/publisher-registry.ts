import { type Logger, silentLogger } from "../logger.js";
import {
  type GaugeMetric,
  type MetricLabels,
  type MetricsRegistry,
  noopMetrics,
} from "../metrics.js";
import type { SerialQueue } from "./serial-queue.js";

/** What a watcher keeps per subscribed key (a service, a profile id, an `ip:port`). */
export interface Publisher {
  /** Listeners still attached. A publisher with none is dropped after its last leave. */
  readonly listenerCount: number;
  /** Called once when the publisher is dropped: delete its metric series, stop its work. */
  close(): void;
}

/** The timer a lingering publisher waits on; tests pass a fake one. */
export interface LingerTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: LingerTimers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A lingering publisher must never keep the process alive.
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface PublisherRegistryOptions<P> {
  /** The watcher's queue: a drop is one of its tasks, so it never happens inside another. */
  queue: SerialQueue;
  /** The gauge that counts live publishers, e.g. `profile_publishers`. */
  gauge: { name: string; help: string; labels?: MetricLabels };
  metrics?: MetricsRegistry;
  logger?: Logger;
  /**
   * How long a publisher without listeners is kept before it is dropped, in ms. 0 (the
   * default) drops it as soon as its last listener has left.
   */
  lingerMs?: number;
  timers?: LingerTimers;
  /** A second key to find publishers by (the pod watcher finds every port of an IP). */
  groupOf?: (publisher: P) => string;
}

interface Entry<P> {
  readonly publisher: P;
  linger?: unknown;
}

/**
 * The publishers of one watcher by key, with the rule every watcher follows for them:
 *
 * - Bounded: a publisher exists while it has listeners. `release` after a listener left drops
 *   it, now or after `lingerMs`, and its `close` deletes its metric series. A key subscribed
 *   again gets a new publisher built from the caches, as the first one was. The drop is a task
 *   of the watcher's `SerialQueue`, never run in the middle of another task.
 * - Counted: the gauge named in the options holds how many publishers are live. It is moved
 *   by increments, so watchers sharing a registry and labels add up.
 * - Grouped, optionally: `groupOf` gives a second key to find publishers by (`inGroup`).
 */
export class PublisherRegistry<P extends Publisher> {
  readonly #entries = new Map<string, Entry<P>>();
  readonly #groups = new Map<string, Map<string, P>>();
  readonly #queue: SerialQueue;
  readonly #logger: Logger;
  readonly #gauge: GaugeMetric;
  readonly #labels: MetricLabels;
  readonly #lingerMs: number;
  readonly #timers: LingerTimers;
  readonly #groupOf: ((publisher: P) => string) | undefined;

  constructor(options: PublisherRegistryOptions<P>) {
    this.#queue = options.queue;
    const metrics = options.metrics ?? noopMetrics;
    this.#logger = options.logger ?? silentLogger;
    this.#labels = Object.freeze({ ...options.gauge.labels });
    this.#gauge = metrics.gauge(options.gauge.name, options.gauge.help, Object.keys(this.#labels));
    this.#gauge.inc(this.#labels, 0);
    this.#lingerMs = options.lingerMs ?? 0;
    this.#timers = options.timers ?? realTimers;
    this.#groupOf = options.groupOf;
  }

  /** Live publishers, lingering ones included. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): P | undefined {
    return this.#entries.get(key)?.publisher;
  }

  /** Whether this very publisher is still live (not dropped, not replaced). */
  has(key: string, publisher: P): boolean {
    return this.#entries.get(key)?.publisher === publisher;
  }

  values(): IterableIterator<P> {
    return [...this.#entries.values()].map((e) => e.publisher).values();
  }

  /** The publishers whose `groupOf` is `group`. */
  inGroup(group: string): Iterable<P> {
    return this.#groups.get(group)?.values() ?? [];
  }

  /**
   * The publisher of `key`, created with `create` when there is none. A lingering one is kept
   * again. Call it for a joining listener only: cache events reach existing publishers alone.
   */
  acquire(key: string, create: () => P): P {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#cancelLinger(entry);
      return entry.publisher;
    }
    const publisher = create();
    this.#entries.set(key, { publisher });
    if (this.#groupOf !== undefined) {
      const group = this.#groupOf(publisher);
      let members = this.#groups.get(group);
      if (members === undefined) {
        members = new Map();
        this.#groups.set(group, members);
      }
      members.set(key, publisher);
    }
    this.#gauge.inc(this.#labels);
    return publisher;
  }

  /**
   * Called after a listener left `key`: drops the publisher if it has none left, now or after
   * the linger. The drop itself is a task, so it never happens in the middle of another one.
   */
  release(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.publisher.listenerCount > 0) return;
    if (this.#lingerMs <= 0) {
      this.#queue.run(() => this.#dropIfIdle(key, entry));
      return;
    }
    if (entry.linger !== undefined) return;
    entry.linger = this.#timers.setTimeout(() => {
      entry.linger = undefined;
      this.#queue.run(() => this.#dropIfIdle(key, entry));
    }, this.#lingerMs);
  }

  /** Drops every publisher now, lingering or not (the watcher stops). */
  clear(): void {
    for (const [key, entry] of [...this.#entries]) this.#drop(key, entry);
  }

  #dropIfIdle(key: string, entry: Entry<P>): void {
    if (this.#entries.get(key) !== entry || entry.publisher.listenerCount > 0) return;
    this.#drop(key, entry);
  }

  #drop(key: string, entry: Entry<P>): void {
    this.#cancelLinger(entry);
    this.#entries.delete(key);
    if (this.#groupOf !== undefined) {
      const group = this.#groupOf(entry.publisher);
      const members = this.#groups.get(group);
      members?.delete(key);
      if (members?.size === 0) this.#groups.delete(group);
    }
    this.#gauge.dec(this.#labels);
    try {
      entry.publisher.close();
    } catch (err) {
      this.#logger.error("closing a publisher failed", { key, error: String(err) });
    }
  }

  #cancelLinger(entry: Entry<P>): void {
    if (entry.linger === undefined) return;
    this.#timers.clearTimeout(entry.linger);
    entry.linger = undefined;
  }
}
