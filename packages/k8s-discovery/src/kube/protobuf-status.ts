import { readStatus, unwrapEnvelope } from "./protobuf-envelope.js";
import type { KubeStatus } from "./watch-event.js";

/**
 * The `Status` of an error response sent as protobuf (a request that accepted protobuf gets its
 * errors that way too): `k8s\0`, then a `runtime.Unknown` whose `raw` is a meta/v1 Status, its
 * `message`, `reason` and `code` as set. Empty when the body is not one.
 */
export function parseProtobufStatus(body: Buffer): KubeStatus {
  try {
    return readStatus(unwrapEnvelope(body));
  } catch {
    // Not a Status after all: the caller reports the HTTP code alone.
    return {};
  }
}
