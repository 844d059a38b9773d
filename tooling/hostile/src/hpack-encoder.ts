// Just enough HPACK (RFC 7541) to write header blocks by hand: integers with an N-bit prefix,
// string literals without Huffman coding, the three literal forms, indexed fields and dynamic
// table size updates. Attacks need exactly the forms a library would never emit on its own.

/** RFC 7541 §5.1: `value` with an N-bit prefix, the first byte's high bits set to `high`. */
export function hpackInteger(value: number, prefixBits: number, high = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([high | value]);
  const bytes = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** RFC 7541 §5.2, H = 0. */
export function hpackString(text: string | Buffer): Buffer {
  const bytes = typeof text === "string" ? Buffer.from(text, "latin1") : text;
  return Buffer.concat([hpackInteger(bytes.length, 7), bytes]);
}

/** §6.2.2: a literal with a literal name, not added to the dynamic table. */
export function literal(name: string, value: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** §6.2.1: a literal with a literal name, added to the dynamic table (it becomes index 62). */
export function literalIndexed(name: string, value: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackString(name), hpackString(value)]);
}

/** §6.1: a field from the static (1–61) or dynamic (62+) table. */
export function indexed(index: number): Buffer {
  return hpackInteger(index, 7, 0x80);
}

/** §6.3: a dynamic table size update. */
export function tableSizeUpdate(size: number): Buffer {
  return hpackInteger(size, 5, 0x20);
}

/** A gRPC request's header block for `path` (all literals, so any decoder state will do). */
export function grpcRequestBlock(
  path: string,
  extra: readonly (readonly [string, string])[] = [],
): Buffer {
  return Buffer.concat(
    [
      [":method", "POST"],
      [":scheme", "http"],
      [":path", path],
      [":authority", "127.0.0.1"],
      ["content-type", "application/grpc"],
      ["te", "trailers"],
      ...extra,
    ].map(([name, value]) => literal(name as string, value as string)),
  );
}
