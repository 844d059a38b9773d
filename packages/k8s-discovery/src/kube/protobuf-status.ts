import { PROTOBUF_MAGIC } from "./api-resource.js";
import { ProtobufReader } from "./protobuf-reader.js";
import type { KubeStatus } from "./watch-event.js";

/**
 * The `Status` of an error response sent as protobuf (a request that accepted protobuf gets its
 * errors that way too): `k8s\0`, then a `runtime.Unknown` whose `raw` (field 2) is a meta/v1
 * Status with `message` (3), `reason` (4) and `code` (6). Empty when the body is not one.
 */
export function parseProtobufStatus(body: Buffer): KubeStatus {
  try {
    const start = PROTOBUF_MAGIC.length;
    if (!body.subarray(0, start).equals(PROTOBUF_MAGIC)) return {};
    const envelope = new ProtobufReader(body, start, body.length);
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
