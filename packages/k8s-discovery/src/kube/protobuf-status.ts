import { isFieldSet } from "@bufbuild/protobuf";
import { StatusSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { PROTOBUF_MAGIC } from "./api-resource.js";
import { decodeMessage } from "./protobuf-decode.js";
import type { KubeStatus } from "./watch-event.js";

/**
 * The `Status` of an error response sent as protobuf (a request that accepted protobuf gets its
 * errors that way too): `k8s\0`, then a `runtime.Unknown` whose `raw` is a meta/v1 Status, its
 * `message`, `reason` and `code` as set. Empty when the body is not one.
 */
export function parseProtobufStatus(body: Buffer): KubeStatus {
  if (!body.subarray(0, PROTOBUF_MAGIC.length).equals(PROTOBUF_MAGIC)) return {};
  try {
    const envelope = decodeMessage(UnknownSchema, body.subarray(PROTOBUF_MAGIC.length));
    if (!isFieldSet(envelope, UnknownSchema.field.raw)) return {};
    const m = decodeMessage(StatusSchema, envelope.raw);
    const status: { code?: number; reason?: string; message?: string } = {};
    if (isFieldSet(m, StatusSchema.field.message)) status.message = m.message;
    if (isFieldSet(m, StatusSchema.field.reason)) status.reason = m.reason;
    if (isFieldSet(m, StatusSchema.field.code)) status.code = m.code;
    return status;
  } catch {
    // Not a Status after all: the caller reports the HTTP code alone.
    return {};
  }
}
