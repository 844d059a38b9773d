import type { ServerHttp2Stream, ServerStreamResponseOptions } from "node:http2";
import { encodeGrpcMessage } from "./grpc-message-header.js";
import { MessageReader } from "./message-frames.js";
import { Status, type StatusCode } from "./status-code.js";
import { StatusError } from "./status-error.js";

/**
 * Response headers of every call: grpc-js' and grpc-go's content type, no compression. No `date`
 * (node adds one unless told not to): grpc-go sends none, and it is one more header to build
 * and encode per call.
 */
const RESPONSE_HEADERS = Object.freeze({
  ":status": 200,
  "content-type": "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
});

/** Node reads `sendDate` from a response's options; its types leave it out. */
type ResponseOptions = ServerStreamResponseOptions & { readonly sendDate: boolean };
const HEADERS_FIRST: ResponseOptions = Object.freeze({ waitForTrailers: true, sendDate: false });
const TRAILERS_ONLY: ResponseOptions = Object.freeze({ endStream: true, sendDate: false });

/** Callbacks of the messages a client sends. */
export interface IncomingListener {
  message(bytes: Buffer): void;
  /** The client has sent its last message. */
  halfClose(): void;
}

/**
 * One gRPC call on one HTTP/2 stream: length-prefixed messages in both directions and the status
 * in trailers. Response headers go with the first message, or with the status as a trailers-only
 * response when the call fails before sending anything. Ends exactly once: by the handler's
 * `end`, or without it (the client left, the deadline passed, the request body was refused),
 * which runs the `onAbort` listeners so the handler releases what it holds.
 */
export class ServerCall {
  readonly #stream: ServerHttp2Stream;
  readonly #reader: MessageReader;
  #abortListeners: (() => void)[] = [];
  #headersSent = false;
  #ended = false;
  #deadline: NodeJS.Timeout | undefined;
  readonly #onSend: () => void;

  /** `onSend` runs whenever headers or a message go out (the connection's ping record). */
  constructor(
    stream: ServerHttp2Stream,
    encoding: string,
    timeoutMs: number | undefined,
    onSend: () => void,
  ) {
    this.#stream = stream;
    this.#onSend = onSend;
    this.#reader = new MessageReader(encoding);
    stream.on("close", () => this.#closed());
    if (timeoutMs !== undefined) {
      this.#deadline = setTimeout(
        () => this.#abort(new StatusError(Status.DEADLINE_EXCEEDED, "Deadline exceeded")),
        timeoutMs,
      );
    }
  }

  /** Whether the call has ended, by `end` or by the client. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Starts reading the client's messages; a message the reader refuses ends the call. */
  read(listener: IncomingListener): void {
    this.#stream.on("data", (chunk: Buffer) => {
      if (this.#ended) return;
      let messages: Buffer[];
      try {
        messages = this.#reader.push(chunk);
      } catch (err) {
        this.#abort(err);
        return;
      }
      for (const message of messages) if (!this.#ended) listener.message(message);
    });
    this.#stream.once("end", () => {
      if (this.#ended) return;
      if (this.#reader.partial) {
        this.#abort(
          new StatusError(Status.INTERNAL, "Request body ended in the middle of a message"),
        );
      } else listener.halfClose();
    });
  }

  /** Runs `listener` when the call ends without the handler ending it. */
  onAbort(listener: () => void): void {
    this.#abortListeners.push(listener);
  }

  /**
   * Sends one message, already framed (`frameMessage`). False when HTTP/2 is backed up: wait for
   * `drain` before the next one.
   */
  write(frame: Uint8Array): boolean {
    if (this.#ended) return true;
    this.#sendHeaders();
    this.#onSend();
    return this.#stream.write(frame);
  }

  once(event: "drain", listener: () => void): void {
    this.#stream.once(event, listener);
  }

  /** Ends the call with a status. */
  end(code: StatusCode = Status.OK, details = ""): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#deadline);
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    const trailers: Record<string, string> = { "grpc-status": String(code) };
    if (details !== "") trailers["grpc-message"] = encodeGrpcMessage(details);
    this.#onSend();
    if (!this.#headersSent) {
      this.#headersSent = true;
      stream.respond({ ...RESPONSE_HEADERS, ...trailers }, TRAILERS_ONLY);
      return;
    }
    stream.once("wantTrailers", () => stream.sendTrailers(trailers));
    stream.end();
  }

  /** Ends the call with a StatusError's status, anything else as INTERNAL. */
  fail(err: unknown): void {
    if (err instanceof StatusError) this.end(err.code, err.details);
    else this.end(Status.INTERNAL, err instanceof Error ? err.message : String(err));
  }

  #sendHeaders(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    this.#stream.respond(RESPONSE_HEADERS, HEADERS_FIRST);
  }

  #abort(err: unknown): void {
    if (this.#ended) return;
    this.fail(err);
    this.#runAbortListeners();
  }

  #closed(): void {
    clearTimeout(this.#deadline);
    if (this.#ended) return;
    this.#ended = true;
    this.#runAbortListeners();
  }

  #runAbortListeners(): void {
    for (const listener of this.#abortListeners.splice(0)) listener();
  }
}
