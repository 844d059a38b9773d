import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import type { StatusCode } from "../grpc/status-error.js";
import { StatusError } from "../grpc/status-error.js";
import type { ServerLogger } from "../logging/server-logger.js";
import type { CallMetrics } from "../metrics/grpc-server-metrics.js";
import type { WritableCall } from "./stream-queue.js";
import { StreamQueue } from "./stream-queue.js";

/** The open streams of a server, so that shutdown can end each of them with OK. */
export class OpenStreams {
  readonly #sessions = new Set<{ end(reason: "shutdown"): void }>();
  #closed = false;

  get size(): number {
    return this.#sessions.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  add(session: { end(reason: "shutdown"): void }): void {
    this.#sessions.add(session);
  }

  delete(session: { end(reason: "shutdown"): void }): void {
    this.#sessions.delete(session);
  }

  /** Ends every open stream with OK and refuses new ones (README "Startup and shutdown"). */
  endAll(): void {
    this.#closed = true;
    for (const session of [...this.#sessions]) session.end("shutdown");
  }
}

export interface StreamSessionOptions<T> {
  readonly call: StreamCall;
  readonly streams: OpenStreams;
  readonly metrics: CallMetrics;
  readonly logger: ServerLogger;
  readonly capacity: number;
  /** A message as its bytes: encoded once, shared by every stream that sends it. */
  readonly encode: (message: T) => Uint8Array;
  /** Every message the queue refused (Get and service profiles count each one). */
  readonly onRefused?: () => void;
  /** The overflow that ends the stream (endpoint profiles count only this one). */
  readonly onOverflow?: () => void;
}

/**
 * One Get or GetProfile call from start to end: its bounded queue (the sink translators write
 * to), the subscriptions to release, and how it ends. It ends exactly once: with OK when the
 * queue overflows or the server shuts down, with an error status when the request fails, or
 * because the client went away; in every case the subscriptions are released.
 */
export class StreamSession<T extends object> {
  readonly sink: StreamQueue<T>;
  readonly #call: StreamCall;
  readonly #streams: OpenStreams;
  readonly #metrics: CallMetrics;
  readonly #logger: ServerLogger;
  readonly #cleanups: (() => void)[] = [];
  #ended = false;

  constructor(options: StreamSessionOptions<T>) {
    this.#call = options.call;
    this.#streams = options.streams;
    this.#metrics = options.metrics;
    this.#logger = options.logger;
    this.sink = new StreamQueue<T>({
      call: options.call,
      capacity: options.capacity,
      encode: options.encode,
      onRefused: options.onRefused,
      onWritten: () => options.metrics.sent(),
      onOverflow: () => {
        options.onOverflow?.();
        this.#logger.warn("stream fell behind and is ended; the client will resubscribe");
        // Not from inside the watcher's listener call: ending unsubscribes.
        queueMicrotask(() => this.end("overflow"));
      },
      logger: options.logger,
    });
    options.streams.add(this);
    // A client that leaves, or a deadline that passes, is a stream's normal end: counted OK, as
    // upstream's handlers return without an error then.
    options.call.onAbort(() => this.#finish(Status.OK, "cancelled"));
  }

  /** Runs `cleanup` when the stream ends (at once if it already has). */
  onEnd(cleanup: () => void): void {
    if (this.#ended) this.#runCleanup(cleanup);
    else this.#cleanups.push(cleanup);
  }

  /** Ends the call with status OK. */
  end(
    reason:
      | "overflow"
      | "shutdown"
      | "federated service gone"
      | "remote cluster unlinked"
      | "remote cluster relinked",
  ): void {
    if (!this.#finish(Status.OK, reason)) return;
    this.#call.end(Status.OK);
  }

  /** Ends the call with an error status (README "Errors"). */
  fail(error: StatusError): void {
    if (!this.#finish(error.code, "failed")) return;
    this.#logger.debug("request refused", { code: error.code, details: error.details });
    this.#call.end(error.code, error.details);
  }

  /** Ends the call for an error that is not a StatusError: logged, answered UNKNOWN. */
  failUnexpected(err: unknown): void {
    this.#logger.error("stream failed", { error: err });
    const message = err instanceof Error ? err.message : String(err);
    this.fail(new StatusError(Status.UNKNOWN, message));
  }

  #finish(code: StatusCode, reason: string): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    this.sink.close();
    this.#streams.delete(this);
    this.#metrics.handled(code);
    this.#logger.debug("stream ended", { reason });
    for (const cleanup of this.#cleanups.splice(0)) this.#runCleanup(cleanup);
    return true;
  }

  #runCleanup(cleanup: () => void): void {
    try {
      cleanup();
    } catch (err) {
      this.#logger.error("failed to release a subscription", { error: err });
    }
  }
}

/**
 * What a stream session needs of a server-streaming call: writes with backpressure, one end with
 * a status, and a signal for the ends it did not choose (the client left, the deadline passed).
 */
export interface StreamCall extends WritableCall {
  /** Ends the call with a status; OK carries no message, as upstream's grpc-go sends it. */
  end(code: StatusCode, details?: string): void;
  /** Runs `listener` when the call ends without `end` (cancellation or deadline). */
  onAbort(listener: () => void): void;
}

/**
 * A grpc-js server-streaming call as a StreamCall. Every end goes through grpc-js' `'error'`
 * event, its way of setting a call's status: `call.end()` would send OK with the message "OK",
 * which no upstream client sees. Messages already written go out before the status.
 */
export function streamCallOf(call: grpc.ServerWritableStream<unknown, Uint8Array>): StreamCall {
  let ended = false;
  return {
    write(bytes) {
      // After the end nothing may be written; the message is dropped as the stream is gone.
      if (ended || call.cancelled) return true;
      return call.write(bytes);
    },
    once(event, listener) {
      return call.once(event, listener);
    },
    end(code = Status.OK, details = "") {
      if (ended) return;
      ended = true;
      if (call.cancelled) return;
      const error: Partial<grpc.StatusObject> = { code, details };
      call.emit("error", error);
    },
    onAbort(listener) {
      call.once("cancelled", () => {
        if (ended) return;
        ended = true;
        listener();
      });
    },
  };
}
