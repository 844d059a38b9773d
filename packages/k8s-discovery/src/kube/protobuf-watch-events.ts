import type { KubeObject } from "@destination/core";
import { PartialObjectMetadataSchema, WatchEventSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { decodeMessage, ProtobufError } from "./protobuf-decode.js";
import { readStatus, unwrapEnvelope } from "./protobuf-envelope.js";
import type { ItemReader } from "./protobuf-list-items.js";
import type { WatchEvent } from "./watch-event.js";

/** The length before every frame of a protobuf watch stream: 4 bytes, big-endian. */
const FRAME_HEADER_BYTES = 4;

/**
 * Splits a protobuf watch response (`application/vnd.kubernetes.protobuf;stream=watch`) into its
 * frames as it arrives: each frame is a 4-byte big-endian length, then one `WatchEvent`. Chunks
 * end anywhere, also inside a length, and one chunk may hold many frames.
 */
export class ProtobufWatchFrames {
  readonly #maxFrameBytes: number;
  #pending: Uint8Array = new Uint8Array(0);

  /** A frame longer than `maxFrameBytes` is an error: no object of the API server is that big. */
  constructor(maxFrameBytes = 128 * 1024 * 1024) {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** The frames completed by this chunk. */
  push(chunk: Uint8Array): Uint8Array[] {
    // Watch events mostly come one per chunk: joining is the rare case.
    let bytes = chunk;
    if (this.#pending.length > 0) {
      bytes = new Uint8Array(this.#pending.length + chunk.length);
      bytes.set(this.#pending);
      bytes.set(chunk, this.#pending.length);
    }
    const frames: Uint8Array[] = [];
    let at = 0;
    while (bytes.length - at >= FRAME_HEADER_BYTES) {
      const length =
        ((bytes[at] as number) << 24) |
        ((bytes[at + 1] as number) << 16) |
        ((bytes[at + 2] as number) << 8) |
        (bytes[at + 3] as number);
      // `<< 24` makes lengths of 2 GiB and more negative: too long either way.
      if (length < 0 || length > this.#maxFrameBytes) {
        throw new ProtobufError(`a watch frame of ${length >>> 0} bytes is past the limit`);
      }
      if (bytes.length - at - FRAME_HEADER_BYTES < length) break;
      frames.push(bytes.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length));
      at += FRAME_HEADER_BYTES + length;
    }
    this.#pending = at === bytes.length ? new Uint8Array(0) : bytes.slice(at);
    return frames;
  }

  /** Throws when the stream ended inside a frame. */
  end(): void {
    if (this.#pending.length > 0) {
      throw new ProtobufError("the watch stream ended inside a frame");
    }
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
