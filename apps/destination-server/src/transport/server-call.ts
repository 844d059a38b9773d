import { encodeHeaderBlock } from "../http2/hpack-encoder.js";
import type { Http2ServerStream } from "../http2/http2-stream.js";
import { encodeGrpcMessage } from "./grpc-message-header.js";
import { MessageReader } from "./message-frames.js";
import { Status, type StatusCode } from "./status-code.js";
import { StatusError } from "./status-error.js";

/**
 * Response headers of every call: grpc-js' and grpc-go's content type, no compression, no `date`
 * (grpc-go sends none). Encoded once: every call sends the same bytes.
 */
const RESPONSE_HEADERS: readonly (readonly [string, string])[] = [
  [":status", "200"],
  ["content-type", "application/grpc+proto"],
  ["grpc-accept-encoding", "identity,deflate,gzip"],
];
const RESPONSE_HEADER_BLOCK = encodeHeaderBlock(RESPONSE_HEADERS);
/** Trailers of a status without a message, the common end of a call, encoded once each. */
const BARE_TRAILERS = new Map<StatusCode, Buffer>();

function trailerFields(code: StatusCode, details: string): [string, string][] {
  const fields: [string, string][] = [["grpc-status", String(code)]];
  if (details !== "") fields.push(["grpc-message", encodeGrpcMessage(details)]);
  return fields;
}

function trailersBlock(code: StatusCode, details: string): Buffer {
  if (details !== "") return encodeHeaderBlock(trailerFields(code, details));
  let block = BARE_TRAILERS.get(code);
  if (block === undefined) {
    block = encodeHeaderBlock(trailerFields(code, ""));
    BARE_TRAILERS.set(code, block);
  }
  return block;
}

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
  readonly #stream: Http2ServerStream;
  readonly #reader: MessageReader;
  #abortListeners: (() => void)[] = [];
  #headersSent = false;
  #ended = false;
  #deadline: NodeJS.Timeout | undefined;
  readonly #onSend: () => void;

  /** `onSend` runs whenever headers or a message go out (the connection's ping record). */
  constructor(
    stream: Http2ServerStream,
    encoding: string,
    timeoutMs: number | undefined,
    onSend: () => void,
  ) {
    this.#stream = stream;
    this.#onSend = onSend;
    this.#reader = new MessageReader(encoding);
    stream.onClose(() => this.#closed());
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
    this.#stream.listen({
      data: (chunk) => {
        if (this.#ended) return;
        let messages: Buffer[];
        try {
          messages = this.#reader.push(chunk);
        } catch (err) {
          this.#abort(err);
          return;
        }
        for (const message of messages) if (!this.#ended) listener.message(message);
      },
      end: () => {
        if (this.#ended) return;
        if (this.#reader.partial) {
          this.#abort(
            new StatusError(Status.INTERNAL, "Request body ended in the middle of a message"),
          );
        } else listener.halfClose();
      },
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

  once(_event: "drain", listener: () => void): void {
    this.#stream.onceDrain(listener);
  }

  /** Ends the call with a status. */
  end(code: StatusCode = Status.OK, details = ""): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#deadline);
    const stream = this.#stream;
    if (stream.closed) return;
    this.#onSend();
    if (!this.#headersSent) {
      this.#headersSent = true;
      stream.respond(
        encodeHeaderBlock([...RESPONSE_HEADERS, ...trailerFields(code, details)]),
        true,
      );
      return;
    }
    stream.end(trailersBlock(code, details));
  }

  /** Ends the call with a StatusError's status, anything else as INTERNAL. */
  fail(err: unknown): void {
    if (err instanceof StatusError) this.end(err.code, err.details);
    else this.end(Status.INTERNAL, err instanceof Error ? err.message : String(err));
  }

  #sendHeaders(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    this.#stream.respond(RESPONSE_HEADER_BLOCK, false);
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
