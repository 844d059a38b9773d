import { type DescMessage, fromBinary, type MessageShape } from "@bufbuild/protobuf";

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
