import { ProtobufReader } from "./protobuf-reader.js";
import type { KubeStatus } from "./watch-event.js";

/** The media type of the API server's protobuf encoding. */
export const PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.startsWith(PROTOBUF_MEDIA_TYPE) === true;
}

/**
 * The `Status` of an error response sent as protobuf (a request that accepted protobuf gets its
 * errors that way too): `k8s\0`, then a `runtime.Unknown` whose `raw` (field 2) is a meta/v1
 * Status with `message` (3), `reason` (4) and `code` (6). Empty when the body is not one.
 */
export function parseProtobufStatus(body: Buffer): KubeStatus {
  try {
    if (body.length < 4 || body.readUInt32BE(0) !== 0x6b387300) return {};
    const envelope = new ProtobufReader(body, 4, body.length);
    while (!envelope.done) {
      const tag = envelope.varint();
      if (tag !== 18) {
        envelope.skip(tag);
        continue;
      }
      const r = envelope.message();
      const status: { code?: number; reason?: string; message?: string } = {};
      while (!r.done) {
        const field = r.varint();
        if (field === 26) status.message = r.string();
        else if (field === 34) status.reason = r.string();
        else if (field === 48) status.code = r.int32();
        else r.skip(field);
      }
      return status;
    }
  } catch {
    // Not a Status after all: the caller reports the HTTP code alone.
  }
  return {};
}
