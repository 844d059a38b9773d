// Splits the bytes a server sends into frames, so an attacker can see its SETTINGS, GOAWAY and
// stream ends without an HTTP/2 library that would refuse to misbehave.
import { FRAME_HEADER_LENGTH } from "./http2-frames.js";

export interface ReadFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);

  /** The complete frames in `chunk` and what came before it; a partial frame waits. */
  push(chunk: Buffer): ReadFrame[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const frames: ReadFrame[] = [];
    let at = 0;
    while (this.#pending.length - at >= FRAME_HEADER_LENGTH) {
      const length = this.#pending.readUIntBE(at, 3);
      if (this.#pending.length - at < FRAME_HEADER_LENGTH + length) break;
      frames.push({
        type: this.#pending.readUInt8(at + 3),
        flags: this.#pending.readUInt8(at + 4),
        streamId: this.#pending.readUInt32BE(at + 5) & 0x7fffffff,
        payload: this.#pending.subarray(
          at + FRAME_HEADER_LENGTH,
          at + FRAME_HEADER_LENGTH + length,
        ),
      });
      at += FRAME_HEADER_LENGTH + length;
    }
    this.#pending = this.#pending.subarray(at);
    return frames;
  }
}
