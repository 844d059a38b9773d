import type { KubeObject } from "@destination/core";
import { PartialObjectMetadataSchema, WatchEventSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { decodeMessage, ProtobufError, readStatus, unwrapEnvelope } from "./protobuf-decode.js";
import type { ItemReader } from "./protobuf-list-items.js";
import type { WatchEvent } from "./watch-event.js";

/** The length before every frame of a protobuf watch stream: 4 bytes, big-endian. */
const FRAME_HEADER_BYTES = 4;

/**
 * Splits a protobuf watch response (`application/vnd.kubernetes.protobuf;stream=watch`) into its
 * frames as it arrives: each frame is a 4-byte big-endian length, then one `WatchEvent`. Chunks
 * end anywhere, also inside a length, and one chunk may hold many frames. The API server sends
 * an object bigger than its 4 KiB write buffer in two chunks or more: the pieces of a frame are
 * kept as they came and joined once, when its last byte is there.
 */
export class ProtobufWatchFrames {
  readonly #maxFrameBytes: number;
  /** The start of a frame that has not arrived whole, in the chunks it came in. */
  #pieces: Uint8Array[] = [];
  #pieceBytes = 0;
  /** The length of the frame in `#pieces` (its 4 bytes included), once they are there. */
  #frameBytes = 0;

  /** A frame longer than `maxFrameBytes` is an error: no object of the API server is that big. */
  constructor(maxFrameBytes = 128 * 1024 * 1024) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** The frames completed by this chunk. */
  push(chunk: Uint8Array): Uint8Array[] {
    let bytes = chunk;
    if (this.#pieceBytes > 0) {
      this.#pieces.push(chunk);
      this.#pieceBytes += chunk.length;
      if (this.#frameBytes === 0 && this.#pieceBytes >= FRAME_HEADER_BYTES) {
        this.#frameBytes = FRAME_HEADER_BYTES + this.#lengthAt(this.#joined(), 0);
      }
      if (this.#frameBytes === 0 || this.#pieceBytes < this.#frameBytes) return [];
      bytes = this.#joined();
      this.#pieces = [];
      this.#pieceBytes = 0;
      this.#frameBytes = 0;
    }
    const frames: Uint8Array[] = [];
    let at = 0;
    while (bytes.length - at >= FRAME_HEADER_BYTES) {
      const length = this.#lengthAt(bytes, at);
      if (bytes.length - at - FRAME_HEADER_BYTES < length) {
        this.#frameBytes = FRAME_HEADER_BYTES + length;
        break;
      }
      frames.push(bytes.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length));
      at += FRAME_HEADER_BYTES + length;
    }
    if (at < bytes.length) {
      this.#pieces.push(bytes.subarray(at));
      this.#pieceBytes = bytes.length - at;
    }
    return frames;
  }

  /** Throws when the stream ended inside a frame. */
  end(): void {
    if (this.#pieceBytes > 0) {
      throw new ProtobufError("the watch stream ended inside a frame");
    }
  }

  /** The pieces as one array (the only piece itself when there is one), kept as `#pieces`. */
  #joined(): Uint8Array {
    if (this.#pieces.length > 1) {
      const joined = new Uint8Array(this.#pieceBytes);
      let offset = 0;
      for (const piece of this.#pieces) {
        joined.set(piece, offset);
        offset += piece.length;
      }
      this.#pieces = [joined];
    }
    return this.#pieces[0] as Uint8Array;
  }

  /** The length a frame header at `at` gives, checked against the limit. */
  #lengthAt(bytes: Uint8Array, at: number): number {
    const length =
      ((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number);
    // `<< 24` makes lengths of 2 GiB and more negative: too long either way.
    if (length < 0 || length > this.#maxFrameBytes) {
      throw new ProtobufError(`a watch frame of ${length >>> 0} bytes is past the limit`);
    }
    return length;
  }
}

/**
 * One frame of a protobuf watch stream, decoded. The event's object is a body of its own (the
 * magic, then a `runtime.Unknown` around the object): ADDED, MODIFIED and DELETED objects are
 * read with `readObject`, a list item reader, so a watched object is exactly what the same
 * object of a list gives; a BOOKMARK's with its metadata alone, which is all it carries; an
 * ERROR's as a `Status`. Throws `ProtobufError` for bytes that are not a watch event.
 */
export function readProtobufWatchEvent(frame: Uint8Array, readObject: ItemReader): WatchEvent {
  const event = decodeMessage(WatchEventSchema, frame);
  if (event.object === undefined) throw new ProtobufError("a watch event without an object");
  const body = unwrapEnvelope(event.object.raw);
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
    case "DELETED": {
      const object = readObject(body) as KubeObject;
      if (object.metadata.name === "") {
        throw new ProtobufError(`${event.type} event for an object without a name`);
      }
      return { type: event.type, object };
    }
    case "BOOKMARK": {
      const { metadata } = decodeMessage(PartialObjectMetadataSchema, body);
      const resourceVersion = metadata?.resourceVersion ?? "";
      if (resourceVersion === "") {
        throw new ProtobufError("BOOKMARK event without a resourceVersion");
      }
      return { type: "BOOKMARK", resourceVersion };
    }
    case "ERROR":
      return { type: "ERROR", status: readStatus(body) };
    default:
      throw new ProtobufError(`unknown watch event type ${JSON.stringify(event.type)}`);
  }
}
