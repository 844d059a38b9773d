/** How a stream closed: by our RST_STREAM, or otherwise (both ends done, or the client's reset). */
export type StreamClosing = "reset-by-us" | "closed";

/**
 * How the connection's most recent streams closed, for the frames that still arrive on them:
 * after our RST_STREAM the client may not have seen it yet, so its frames are dropped; after any
 * other close they are an error (RFC 9113 section 5.1). Bounded: the oldest are forgotten, and a
 * frame on a stream closed that long ago is treated as on a stream never opened.
 */
export class ClosedStreams {
  readonly #capacity: number;
  readonly #closings = new Map<number, StreamClosing>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  note(streamId: number, closing: StreamClosing): void {
    if (this.#closings.size >= this.#capacity) {
      const oldest = this.#closings.keys().next().value;
      if (oldest !== undefined) this.#closings.delete(oldest);
    }
    this.#closings.set(streamId, closing);
  }

  /** How the stream closed, if it is among the recent ones. */
  closing(streamId: number): StreamClosing | undefined {
    return this.#closings.get(streamId);
  }
}
