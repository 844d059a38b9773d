import type { Logger } from "@destination/k8s-discovery";

/** One listener's registration with a watcher. Calls still queued for it are dropped once it ends. */
export interface Subscription<L> {
  readonly listener: L;
  active: boolean;
}

export function newSubscription<L>(listener: L): Subscription<L> {
  return { listener, active: true };
}

/**
 * Calls listeners one at a time, in the order the watcher's state changed. A listener that calls
 * back into the watcher (or into the cache feeding it) only queues further calls; they run after
 * the current call returns, so no listener is ever entered twice and a later value never
 * overtakes an earlier one. A throwing listener is logged and the rest still run.
 */
export class NotificationQueue {
  readonly #logger: Logger;
  readonly #pending: { run: () => void; context: Record<string, unknown> }[] = [];
  #draining = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Queues `call` for every subscription, then delivers unless a delivery is already under way
   * further up the stack. Every call of one state change is queued before any runs, so a
   * re-entrant change cannot slip in between two listeners of the same change.
   */
  notify<L>(
    subscriptions: Iterable<Subscription<L>>,
    call: (listener: L) => void,
    context: Record<string, unknown>,
  ): void {
    for (const subscription of subscriptions) {
      this.#pending.push({
        run: () => {
          if (subscription.active) call(subscription.listener);
        },
        context,
      });
    }
    this.#drain();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let next = this.#pending.shift(); next !== undefined; next = this.#pending.shift()) {
        try {
          next.run();
        } catch (err) {
          this.#logger.error("listener failed", { ...next.context, error: String(err) });
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
