// The (de)serializers grpc-js service definitions take, with protobuf-es doing the work.
import { type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";

/** Wraps bytes as a Buffer without copying (grpc-js wants Buffers). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Serializes a message, or passes through the bytes of one encoded already. */
export function encoder<Desc extends DescMessage>(schema: Desc) {
  return (value: MessageShape<Desc> | Uint8Array): Buffer =>
    value instanceof Uint8Array ? asBuffer(value) : asBuffer(toBinary(schema, value));
}

export function decoder<Desc extends DescMessage>(schema: Desc) {
  return (bytes: Buffer): MessageShape<Desc> => fromBinary(schema, bytes);
}

/** Bytes before a message in a gRPC frame: the compressed flag and a big-endian length. */
