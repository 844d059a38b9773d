import { type DescMessage, fromBinary, isFieldSet, type MessageShape } from "@bufbuild/protobuf";
import { StatusSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { PROTOBUF_MAGIC } from "./api-resource.js";
import type { KubeStatus } from "./watch-event.js";

/** A protobuf body of the API server that does not decode. */
export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

// The schemas in proto/ declare only the fields some cache keeps: everything else the API
// server sends (most of a pod's bytes) is skipped by length, not kept as unknown fields.
const SKIP_UNKNOWN = { readUnknownFields: false } as const;

/**
 * Decodes one message of the API server with its generated schema (see proto/). Throws
 * `ProtobufError` for bytes that are not one (truncated, a wrong wire type).
 */
export function decodeMessage<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
): MessageShape<Desc> {
  try {
    return fromBinary(schema, bytes, SKIP_UNKNOWN);
  } catch (err) {
    throw new ProtobufError(`not a ${schema.name}: ${(err as Error).message}`);
  }
}

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
