import { type Logger, silentLogger } from "../logger.js";
import {
  type GaugeMetric,
  type MetricLabels,
  type MetricsRegistry,
  noopMetrics,
} from "../metrics.js";

/** What a watcher keeps per subscribed key (a service, a profile id, an `ip:port`). */
export interface Publisher {
  /** Listeners still attached. A publisher with none is dropped after its last leave. */
  readonly listenerCount: number;
  /** Called once when the publisher is dropped: delete its metric series, stop its work. */
  close(): void;
}

/** One listener's registration. Calls still queued for it are dropped once it ends. */
export interface Subscription<L> {
  readonly listener: L;
  active: boolean;
}

export function newSubscription<L>(listener: L): Subscription<L> {
  return { listener, active: true };
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

export interface PublishersOptions<P> {
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

interface Queued {
  readonly run: () => void;
  readonly context?: Record<string, unknown>;
}

/**
 * The publishers of one watcher, with the one rule every watcher follows for them:
 *
 * - Serialised: every task (`run`) and every listener call (`deliver`) runs to completion, one
 *   at a time, in arrival order. One started while another runs (a listener calling back into
 *   the watcher, or into the cache that feeds it) waits until the current one returns, so no
 *   listener is ever entered twice and a later value never overtakes an earlier one.
 * - Bounded: a publisher exists while it has listeners. `release` after a listener left drops
 *   it, now or after `lingerMs`, and its `close` deletes its metric series. A key subscribed
 *   again gets a new publisher built from the caches, as the first one was.
 * - Counted: the gauge named in the options holds how many publishers are live. It is moved
 *   by increments, so watchers sharing a registry and labels add up.
 */
export class Publishers<P extends Publisher> {
  readonly #entries = new Map<string, Entry<P>>();
  readonly #groups = new Map<string, Map<string, P>>();
  readonly #pending: Queued[] = [];
  readonly #logger: Logger;
  readonly #gauge: GaugeMetric;
  readonly #labels: MetricLabels;
  readonly #lingerMs: number;
  readonly #timers: LingerTimers;
  readonly #groupOf: ((publisher: P) => string) | undefined;
  #running = false;

  constructor(options: PublishersOptions<P>) {
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
      this.run(() => this.#dropIfIdle(key, entry));
      return;
    }
    if (entry.linger !== undefined) return;
    entry.linger = this.#timers.setTimeout(() => {
      entry.linger = undefined;
      this.run(() => this.#dropIfIdle(key, entry));
    }, this.#lingerMs);
  }

  /** Drops every publisher now, lingering or not (the watcher stops). */
  clear(): void {
    for (const [key, entry] of [...this.#entries]) this.#drop(key, entry);
  }

  /**
   * Runs `task` now, or after the task or listener call under way. Only a task run now can
   * throw to the caller; a deferred one that throws is logged.
   */
  run(task: () => void, context?: Record<string, unknown>): void {
    if (this.#running) {
      this.#pending.push({ run: task, context });
      return;
    }
    this.#running = true;
    try {
      task();
    } finally {
      this.#drain();
    }
  }

  /**
   * Calls `call` for every subscription that is still active when its turn comes. Every call of
   * one change is queued before any runs, so a change caused from inside a listener cannot slip
   * in between two listeners of this one. A throwing listener is logged with `context` and the
   * others are still called.
   */
  deliver<L>(
    subscriptions: Iterable<Subscription<L>>,
    call: (listener: L) => void,
    context: Record<string, unknown>,
  ): void {
    for (const subscription of subscriptions) {
      this.#pending.push({
        run: () => {
          if (!subscription.active) return;
          try {
            call(subscription.listener);
          } catch (err) {
            this.#logger.error("listener failed", { ...context, error: String(err) });
          }
        },
      });
    }
    if (this.#running) return;
    this.#running = true;
    this.#drain();
  }

  #drain(): void {
    try {
      for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
        try {
          next.run();
        } catch (err) {
          this.#logger.error("deferred watcher task failed", {
            ...next.context,
            error: String(err),
          });
        }
      }
    } finally {
      this.#running = false;
    }
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
