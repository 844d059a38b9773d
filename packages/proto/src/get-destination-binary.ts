// A hand-written decoder for `GetDestination`, the request of both RPCs, read once per new
// subscription. It gives exactly what protobuf-es `fromBinary(GetDestinationSchema, …)` gives,
// but only decodes the request every proxy sends (the three string fields, each with its usual
// tag, valid UTF-8, lengths in bounds) itself: anything else (an unknown field, another wire
// type, invalid UTF-8, a truncated message) goes to `fromBinary`, for its exact result or its
// exact error. `get-destination-binary.test.ts` compares the two.
import { fromBinary } from "@bufbuild/protobuf";
import { type GetDestination, GetDestinationSchema } from "./gen/destination_pb.js";

// Tags of the string fields: field number << 3 | length-delimited.
const SCHEME = 0x0a;
const PATH = 0x12;
const CONTEXT_TOKEN = 0x1a;

// Up to this length, building an ASCII string from char codes is cheaper than a call into Node.
const SHORT = 12;

/** Decodes a GetDestination exactly as `fromBinary(GetDestinationSchema, bytes)` does. */
export function getDestinationFromBinary(bytes: Uint8Array): GetDestination {
  let scheme = "";
  let path = "";
  let contextToken = "";
  const end = bytes.length;
  let pos = 0;
  while (pos < end) {
    const tag = bytes[pos++];
    if ((tag !== SCHEME && tag !== PATH && tag !== CONTEXT_TOKEN) || pos === end) {
      return fromBinary(GetDestinationSchema, bytes);
    }
    let length = bytes[pos++] as number;
    if (length > 0x7f) {
      // Lengths of up to four varint bytes (256 MiB); longer ones are left to fromBinary.
      length &= 0x7f;
      for (let shift = 7; ; shift += 7) {
        if (pos === end || shift > 21) return fromBinary(GetDestinationSchema, bytes);
        const b = bytes[pos++] as number;
        length |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    const start = pos;
    pos += length;
    if (pos > end) return fromBinary(GetDestinationSchema, bytes);
    const value = text(bytes, start, pos);
    if (value === undefined) return fromBinary(GetDestinationSchema, bytes);
    if (tag === SCHEME) scheme = value;
    else if (tag === PATH) path = value;
    else contextToken = value;
  }
  // The fields in the order `create` gives them.
  return { $typeName: "io.linkerd.proxy.destination.GetDestination", scheme, path, contextToken };
}

/**
 * Node's direct UTF-8 decoder (on every Buffer since early Node, though undocumented): it skips
 * `toString`'s argument parsing. It replaces invalid UTF-8 with U+FFFD where `fromBinary` throws.
 */
type RawBuffer = Buffer & { utf8Slice(start: number, end: number): string };

/** The text of bytes `start` to `end`, or undefined if `fromBinary` should decide. */
function text(bytes: Uint8Array, start: number, end: number): string | undefined {
  if (end - start <= SHORT) {
    let ascii = "";
    for (let i = start; i < end; i++) {
      const b = bytes[i] as number;
      if (b > 0x7f) return undefined;
      ascii += String.fromCharCode(b);
    }
    return ascii;
  }
  const buf = (
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  ) as RawBuffer;
  const decoded = buf.utf8Slice(start, end);
  // Invalid UTF-8 (or a real U+FFFD, which fromBinary then decodes the same).
  return decoded.includes("\ufffd") ? undefined : decoded;
}
