import { gunzipSync, inflateSync } from "node:zlib";
import { Status } from "./status-code.js";
import { StatusError } from "./status-error.js";

/** The five bytes before every gRPC message: a compressed flag and a big-endian length. */
const PREFIX = 5;

/** The largest request message accepted, as grpc-js' and grpc-go's servers default. */
export const MAX_RECEIVE_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A message as it goes on the wire: uncompressed flag, length, then the bytes. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX);
  return frame;
}

/**
 * Cuts the request body of one call into messages, however HTTP/2 split it into DATA frames.
 * `encoding` is the call's `grpc-encoding`: a compressed message is inflated with it.
 */
export class MessageReader {
  readonly #encoding: string;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(encoding: string) {
    this.#encoding = encoding;
  }

  /** Whether a message has started but not finished (the body ended mid-message). */
  get partial(): boolean {
    return this.#pendingBytes > 0;
  }

  /**
   * The messages `chunk` completes, in order.
   * @throws StatusError for a message over the size limit or one it cannot decompress
   */
  push(chunk: Buffer): Buffer[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const messages: Buffer[] = [];
    while (this.#pendingBytes >= PREFIX) {
      const head = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : this.#join();
      const compressed = head[0] === 1;
      const length = head.readUInt32BE(1);
      if (length > MAX_RECEIVE_MESSAGE_BYTES) {
        throw new StatusError(
          Status.RESOURCE_EXHAUSTED,
          `Received message larger than max (${length} vs. ${MAX_RECEIVE_MESSAGE_BYTES})`,
        );
      }
      if (this.#pendingBytes < PREFIX + length) break;
      const all = this.#join();
      const body = all.subarray(PREFIX, PREFIX + length);
      messages.push(compressed ? this.#decompress(body) : body);
      const rest = all.subarray(PREFIX + length);
      this.#pending = rest.length > 0 ? [rest] : [];
      this.#pendingBytes = rest.length;
    }
    return messages;
  }

  #join(): Buffer {
    // A request mostly arrives in one chunk: it is read in place, not copied.
    if (this.#pending.length === 1) return this.#pending[0] as Buffer;
    const joined = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [joined];
    return joined;
  }

  #decompress(body: Buffer): Buffer {
    try {
      if (this.#encoding === "gzip") return gunzipSync(body);
      if (this.#encoding === "deflate") return inflateSync(body);
    } catch (err) {
      throw new StatusError(
        Status.INTERNAL,
        `Failed to decompress a message: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    throw new StatusError(
      Status.INTERNAL,
      `Compressed message received with grpc-encoding "${this.#encoding || "identity"}"`,
    );
  }
}
