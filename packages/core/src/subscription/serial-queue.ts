import { type Logger, silentLogger } from "../logger.js";
import type { Subscription } from "./subscription.js";

export interface SerialQueueOptions {
  /** Where a deferred task or a listener call that throws is logged. */
  logger?: Logger;
}

interface Queued {
  readonly run: () => void;
  readonly context?: Record<string, unknown>;
}

/**
 * One watcher's work, one piece at a time: every task (`run`) and every listener call
 * (`deliver`) runs to completion, in arrival order. One started while another runs (a listener
 * calling back into the watcher, or into the cache that feeds it) waits until the current one
 * returns, so no listener is ever entered twice and a later value never overtakes an earlier
 * one. Every cache event of a watcher and every subscribe and unsubscribe is one task of its
 * queue.
 */
export class SerialQueue {
  readonly #pending: Queued[] = [];
  readonly #logger: Logger;
  #running = false;

  constructor(options: SerialQueueOptions = {}) {
    this.#logger = options.logger ?? silentLogger;
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
}
