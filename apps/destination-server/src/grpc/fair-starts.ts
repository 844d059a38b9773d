/** How long one turn of starts may hold the event loop before other sockets are read again. */
export const START_SLICE_MS = 5;

/**
 * The starts of new calls (routing, subscribing, the first Update), taken in turns across
 * connections and a few milliseconds of the event loop at a time. A start costs far more than
 * reading the request, so without turns a client that opens thousands of streams at once holds
 * the event loop for seconds, in the order its frames arrived, and every other proxy's Get (and
 * the health check) waits behind them. With turns a new connection's call starts within one
 * slice, whatever another connection has queued; calls from one connection keep their order.
 */
export class FairStarts {
  /** Waiting starts by connection; insertion order is the order of turns. */
  readonly #waiting = new Map<string, (() => void)[]>();
  readonly #sliceMs: number;
  #scheduled = false;

  constructor(sliceMs = START_SLICE_MS) {
    this.#sliceMs = sliceMs;
  }

  /** Calls waiting for their turn, over every connection. */
  get size(): number {
    let size = 0;
    for (const queue of this.#waiting.values()) size += queue.length;
    return size;
  }

  /** Runs `start` in `connection`'s next turn. `start` handles its own errors. */
  run(connection: string, start: () => void): void {
    const queue = this.#waiting.get(connection);
    if (queue === undefined) this.#waiting.set(connection, [start]);
    else queue.push(start);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // After the poll phase: sockets that became readable meanwhile are read first.
      setImmediate(this.#turn);
    }
  }

  readonly #turn = (): void => {
    const until = performance.now() + this.#sliceMs;
    try {
      while (this.#waiting.size > 0) {
        // One start per connection per round; a connection added during the round is visited
        // in it too (Map iteration sees entries added while it runs).
        for (const [connection, queue] of this.#waiting) {
          const start = queue.shift();
          if (queue.length === 0) this.#waiting.delete(connection);
          start?.();
          if (performance.now() >= until) return;
        }
      }
    } finally {
      this.#scheduled = this.#waiting.size > 0;
      if (this.#scheduled) setImmediate(this.#turn);
    }
  };
}
