import type { Logger } from "@destination/k8s-discovery";

/**
 * every cache event and every subscribe or unsubscribe runs as one task, to completion,
 * in arrival order. A task started while another runs (a listener calling back into the
 * watcher, A-7) waits for it, so listeners are never re-entered.
 */
export class TaskQueue {
  readonly #pending: (() => void)[] = [];
  readonly #logger: Logger;
  #running = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Runs `task` now, or after the running one. Only a task run now can throw to the caller. */
  run(task: () => void): void {
    if (this.#running) {
      this.#pending.push(task);
      return;
    }
    this.#running = true;
    try {
      task();
    } finally {
      this.#drain();
      this.#running = false;
    }
  }

  #drain(): void {
    for (let task = this.#pending.shift(); task !== undefined; task = this.#pending.shift()) {
      try {
        task();
      } catch (err) {
        this.#logger.error("deferred endpoints-watcher task failed", { error: String(err) });
      }
    }
  }
}
