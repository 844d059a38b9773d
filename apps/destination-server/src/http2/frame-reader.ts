import { CLIENT_PREFACE, ErrorCode, FRAME_HEADER_BYTES } from "./frame-types.js";
import { ConnectionError } from "./http2-errors.js";

/** Receives each frame as its fields, so that no object is made per frame. */
export type FrameListener = (
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer,
) => void;

/**
 * Cuts a client's byte stream into frames, however TCP split it: first the connection preface,
 * then frames of at most `maxFrameSize` payload bytes (what we advertised).
 */
export class FrameReader {
  readonly #maxFrameSize: number;
  #prefaceSeen = false;
  /** Bytes of an unfinished preface or frame from earlier chunks. */
  #partial: Buffer | undefined;
  #stopped = false;

  constructor(maxFrameSize: number) {
    this.#maxFrameSize = maxFrameSize;
  }

  /** Stops delivering frames, also in the middle of a chunk (the connection is closing). */
  stop(): void {
    this.#stopped = true;
    this.#partial = undefined;
  }

  /**
   * Delivers every frame `chunk` completes.
   * @throws ConnectionError for a wrong preface or a frame over the size limit
   */
  push(chunk: Buffer, onFrame: FrameListener): void {
    if (this.#stopped) return;
    let bytes = chunk;
    if (this.#partial !== undefined) {
      bytes = Buffer.concat([this.#partial, chunk]);
      this.#partial = undefined;
    }
    let at = 0;
    if (!this.#prefaceSeen) {
      const seen = Math.min(bytes.length, CLIENT_PREFACE.length);
      if (bytes.compare(CLIENT_PREFACE, 0, seen, 0, seen) !== 0) {
        throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "not an HTTP/2 connection preface");
      }
      if (seen < CLIENT_PREFACE.length) {
        this.#partial = bytes;
        return;
      }
      this.#prefaceSeen = true;
      at = CLIENT_PREFACE.length;
    }
    while (!this.#stopped) {
      const left = bytes.length - at;
      if (left < FRAME_HEADER_BYTES) break;
      const length = (bytes[at] as number) * 65_536 + bytes.readUInt16BE(at + 1);
      if (length > this.#maxFrameSize) {
        throw new ConnectionError(
          ErrorCode.FRAME_SIZE_ERROR,
          `frame of ${length} bytes over the ${this.#maxFrameSize} advertised`,
        );
      }
      if (left < FRAME_HEADER_BYTES + length) break;
      const type = bytes[at + 3] as number;
      const flags = bytes[at + 4] as number;
      // The reserved bit is ignored on receipt.
      const streamId = bytes.readUInt32BE(at + 5) & 0x7fff_ffff;
      const start = at + FRAME_HEADER_BYTES;
      at = start + length;
      onFrame(type, flags, streamId, bytes.subarray(start, at));
    }
    if (!this.#stopped && at < bytes.length) this.#partial = bytes.subarray(at);
  }
}
