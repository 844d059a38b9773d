import { EventEmitter } from "node:events";
import { create, type GetDestination, GetDestinationSchema } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import type { AcceptedCall, ToServing } from "./serving-thread-protocol.js";

/** Where a remote call's writes and end go: the batch to the serving thread. */
export interface CallOutbox {
  write(id: number, bytes: Uint8Array): void;
  end(id: number, code: number, details: string): void;
}

/**
 * The writes and ends of this task, sent to the serving thread in one message once the task
 * is over; a payload written to many calls (a fan-out) is sent once.
 */
export class Outbox implements CallOutbox {
  #writes: number[] = [];
  #payloads: Uint8Array[] = [];
  #index = new Map<Uint8Array, number>();
  #ends: [number, number, string][] = [];
  #scheduled = false;
  readonly #post: (message: ToServing) => void;

  constructor(post: (message: ToServing) => void) {
    this.#post = post;
  }

  write(id: number, bytes: Uint8Array): void {
    let index = this.#index.get(bytes);
    if (index === undefined) {
      index = this.#payloads.length;
      this.#payloads.push(bytes);
      this.#index.set(bytes, index);
    }
    this.#writes.push(id, index);
    this.#schedule();
  }

  end(id: number, code: number, details: string): void {
    this.#ends.push([id, code, details]);
    this.#schedule();
  }

  /** Sends what is waiting now (before a message that must come after it). */
  flush(): void {
    if (this.#writes.length === 0 && this.#ends.length === 0) return;
    const message: ToServing = {
      t: "out",
      writes: this.#writes,
      payloads: this.#payloads,
      ends: this.#ends,
    };
    this.#writes = [];
    this.#payloads = [];
    this.#index = new Map();
    this.#ends = [];
    this.#post(message);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.flush();
    });
  }
}

/**
 * A call the serving thread accepted, as the Destination handlers see a grpc-js call: its
 * request and peer, `write` with backpressure (false once the serving thread reported the HTTP/2
 * stream backed up, until it drained), an end through `'error'`, and `'cancelled'` when the
 * client left. What the handlers do with a call is what they do in one thread.
 */
export class RemoteCall extends EventEmitter {
  readonly id: number;
  readonly request: GetDestination;
  readonly #peer: string;
  readonly #outbox: CallOutbox;
  #cancelled = false;
  #paused = false;

  constructor(accepted: AcceptedCall, outbox: CallOutbox) {
    super();
    this.id = accepted.id;
    this.#peer = accepted.peer;
    this.#outbox = outbox;
    this.request = create(GetDestinationSchema, {
      scheme: accepted.scheme,
      path: accepted.path,
      contextToken: accepted.contextToken,
    });
    // grpc-js sets a call's status through 'error'; so do the handlers (streamCallOf).
    this.on("error", (status: Partial<grpc.StatusObject>) => {
      this.#outbox.end(this.id, status.code ?? 0, status.details ?? "");
    });
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  getPeer(): string {
    return this.#peer;
  }

  write(bytes: Uint8Array): boolean {
    if (this.#cancelled) return true;
    this.#outbox.write(this.id, bytes);
    return !this.#paused;
  }

  /** The serving thread: the client ended the call. */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.emit("cancelled");
  }

  /** The serving thread: the HTTP/2 stream backed up, or drained. */
  pause(): void {
    this.#paused = true;
  }

  drain(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.emit("drain");
  }

  /** The type the Destination handlers take; they use only what this class has. */
  asServerCall(): grpc.ServerWritableStream<GetDestination, Uint8Array> {
    return this as unknown as grpc.ServerWritableStream<GetDestination, Uint8Array>;
  }
}
