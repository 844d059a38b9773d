import { STATIC_FIELD_INDEX, STATIC_NAME_INDEX } from "./hpack-static-table.js";

/**
 * Encodes a header list as one HPACK header block (RFC 7541) without using the dynamic table, so
 * the encoder has no state and its output is valid whatever table size the peer allows: a field
 * the static table holds exactly is indexed (section 6.1); any other is a literal without indexing
 * (section 6.2.2), its name indexed if the static table has it. Strings are raw octets, no Huffman: one
 * char of `name` or `value` is one octet (latin1), so they must hold no char above U+00FF.
 * Names are expected lowercase, as HTTP/2 requires; this is not checked.
 */
export function encodeHeaderBlock(fields: readonly (readonly [string, string])[]): Buffer {
  let length = 0;
  for (const [name, value] of fields) {
    const exact = STATIC_FIELD_INDEX.get(name)?.get(value);
    if (exact !== undefined) {
      length += integerLength(exact, 7);
      continue;
    }
    const nameIndex = STATIC_NAME_INDEX.get(name);
    length +=
      nameIndex === undefined
        ? 1 + stringLength(name) + stringLength(value)
        : integerLength(nameIndex, 4) + stringLength(value);
  }
  const block = Buffer.allocUnsafe(length);
  let pos = 0;
  for (const [name, value] of fields) {
    const exact = STATIC_FIELD_INDEX.get(name)?.get(value);
    if (exact !== undefined) {
      pos = writeInteger(block, pos, 0x80, 7, exact);
      continue;
    }
    const nameIndex = STATIC_NAME_INDEX.get(name);
    if (nameIndex === undefined) {
      block[pos++] = 0x00;
      pos = writeString(block, pos, name);
    } else {
      pos = writeInteger(block, pos, 0x00, 4, nameIndex);
    }
    pos = writeString(block, pos, value);
  }
  return block;
}

/** Octets of `value` as an integer with a `prefixBits`-bit prefix (RFC 7541 section 5.1). */
function integerLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let length = 2;
  for (let rest = value - max; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++;
  return length;
}

function stringLength(text: string): number {
  return integerLength(text.length, 7) + text.length;
}

/** Writes `value` after the representation's pattern bits `pattern` (RFC 7541 section 5.1). */
function writeInteger(
  block: Buffer,
  pos: number,
  pattern: number,
  prefixBits: number,
  value: number,
): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    block[pos++] = pattern | value;
    return pos;
  }
  block[pos++] = pattern | max;
  let rest = value - max;
  while (rest >= 0x80) {
    block[pos++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  block[pos++] = rest;
  return pos;
}

/** A raw string literal: H bit clear, 7-bit-prefix length, latin1 octets (RFC 7541 section 5.2). */
function writeString(block: Buffer, pos: number, text: string): number {
  pos = writeInteger(block, pos, 0x00, 7, text.length);
  return pos + block.write(text, pos, "latin1");
}
