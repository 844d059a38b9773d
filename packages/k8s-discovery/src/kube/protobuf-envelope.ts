import { isFieldSet } from "@bufbuild/protobuf";
import { StatusSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { PROTOBUF_MAGIC } from "./api-resource.js";
import { decodeMessage, ProtobufError } from "./protobuf-decode.js";
import type { KubeStatus } from "./watch-event.js";

/**
 * The encoded object of a protobuf body of the API server: the body is the magic `k8s\0`, then
 * a `runtime.Unknown` whose `raw` is the object. Throws `ProtobufError` for anything else.
 */
export function unwrapEnvelope(body: Uint8Array): Uint8Array {
  if (body.length < PROTOBUF_MAGIC.length) throw new ProtobufError("a body shorter than the magic");
  for (let i = 0; i < PROTOBUF_MAGIC.length; i++) {
    if (body[i] !== PROTOBUF_MAGIC[i]) {
      throw new ProtobufError("the body does not start with the protobuf magic k8s\\0");
    }
  }
  const envelope = decodeMessage(UnknownSchema, body.subarray(PROTOBUF_MAGIC.length));
  if (!isFieldSet(envelope, UnknownSchema.field.raw)) {
    throw new ProtobufError("the envelope holds no object");
  }
  return envelope.raw;
}

/** A meta/v1 `Status`, from its encoded message: its `message`, `reason` and `code` as set. */
export function readStatus(bytes: Uint8Array): KubeStatus {
  const m = decodeMessage(StatusSchema, bytes);
  const status: { code?: number; reason?: string; message?: string } = {};
  if (isFieldSet(m, StatusSchema.field.message)) status.message = m.message;
  if (isFieldSet(m, StatusSchema.field.reason)) status.reason = m.reason;
  if (isFieldSet(m, StatusSchema.field.code)) status.code = m.code;
  return status;
}
