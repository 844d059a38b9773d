import type { Logger } from "@destination/core";

/** What the queue writes to: a gRPC call (`write` false = HTTP/2 is backed up). */
export interface WritableCall {
  write(chunk: Uint8Array): boolean;
  once(event: "drain", listener: () => void): unknown;
}

export interface StreamQueueOptions<T> {
  readonly call: WritableCall;
  /** Messages held while the transport is backed up (`--stream-queue-capacity`). */
  readonly capacity: number;
  readonly encode: (message: T) => Uint8Array;
  /** The first refused message: the stream has fallen behind and must end (with status OK). */
  readonly onOverflow: () => void;
  /** Every refused message, the first included. */
  readonly onRefused?: () => void;
  /** Every message handed to the transport. */
  readonly onWritten?: () => void;
  readonly logger: Logger;
}

/** One producer's view of a shared queue: its own capacity and its own refusal counter. */
export interface QueueSource<T> {
  send(message: T): boolean;
}

/**
 * A stream's bounded FIFO between the watchers (producers, which never block) and the gRPC
 * stream. Messages go straight to the transport while it accepts them; once HTTP/2 reports
 * backpressure they wait here, and when `capacity` are waiting the stream has fallen behind:
 * the message is refused, the queue empties and `onOverflow` runs once.
 *
 * A federated stream has several producers (one per member): each gets a `source()` with a capacity
 * of its own, all share this one serialised writer, and any source's overflow ends the stream.
 */
export class StreamQueue<T> {
  readonly #options: StreamQueueOptions<T>;
  #items: { message: T; source: object }[] = [];
  /** Messages waiting per source; the default source is the queue itself. */
  readonly #waiting = new Map<object, number>();
  #waitingForDrain = false;
  #state: "open" | "overflowed" | "closed" = "open";

  constructor(options: StreamQueueOptions<T>) {
    if (!(options.capacity > 0)) throw new RangeError("stream queue capacity must be positive");
    this.#options = options;
  }

  /** Messages waiting for the transport. */
  get length(): number {
    return this.#items.length;
  }

  get overflowed(): boolean {
    return this.#state === "overflowed";
  }

  /** Enqueues or writes a message; false when it was refused (overflow, or a closed stream). */
  send(message: T): boolean {
    return this.#send(message, this, this.#options.onRefused);
  }

  /** A producer with its own capacity and refusal counter, writing through this queue. */
  source(onRefused?: () => void): QueueSource<T> {
    const source = {};
    return { send: (message) => this.#send(message, source, onRefused) };
  }

  #send(message: T, source: object, onRefused: (() => void) | undefined): boolean {
    if (this.#state === "closed") return false;
    if (this.#state === "overflowed") {
      onRefused?.();
      return false;
    }
    if (!this.#waitingForDrain && this.length === 0) {
      this.#write(message);
      return true;
    }
    const waiting = this.#waiting.get(source) ?? 0;
    if (waiting >= this.#options.capacity) {
      this.#state = "overflowed";
      this.#items = [];
      this.#waiting.clear();
      onRefused?.();
      this.#options.onOverflow();
      return false;
    }
    this.#items.push({ message, source });
    this.#waiting.set(source, waiting + 1);
    return true;
  }

  /** Drops whatever waits and refuses everything from now on (cancellation, shutdown). */
  close(): void {
    this.#state = "closed";
    this.#items = [];
    this.#waiting.clear();
  }

  #write(message: T): void {
    let bytes: Uint8Array;
    try {
      bytes = this.#options.encode(message);
    } catch (err) {
      this.#options.logger.error("failed to encode a message; it is skipped", { error: err });
      return;
    }
    let accepted: boolean;
    try {
      accepted = this.#options.call.write(bytes);
    } catch (err) {
      // A write on a stream that is going away: the close handler cleans up.
      this.#options.logger.debug("failed to send a message", { error: err });
      return;
    }
    this.#options.onWritten?.();
    if (!accepted) {
      this.#waitingForDrain = true;
      this.#options.call.once("drain", () => this.#drain());
    }
  }

  #drain(): void {
    this.#waitingForDrain = false;
    // Bounded by the capacity, so shifting a small array is cheap.
    while (this.#state === "open" && !this.#waitingForDrain && this.#items.length > 0) {
      const item = this.#items.shift() as { message: T; source: object };
      const left = (this.#waiting.get(item.source) ?? 1) - 1;
      if (left > 0) this.#waiting.set(item.source, left);
      else this.#waiting.delete(item.source);
      this.#write(item.message);
    }
  }
}
