import { HpackError } from "./hpack-error.js";

/*
 * The HPACK Huffman code (RFC 7541 Appendix B): symbol `s` (0-255 an octet, 256 EOS) is the
 * `HUFFMAN_CODE_LENGTHS[s]` low bits of `HUFFMAN_CODES[s]`, most significant bit first. The code
 * is canonical (codes ordered by length, then symbol), which a test checks against these arrays.
 */
// biome-ignore format: eight symbols a row, labelled
export const HUFFMAN_CODES = new Uint32Array([
  0x1ff8, 0x7fffd8, 0xfffffe2, 0xfffffe3, 0xfffffe4, 0xfffffe5, 0xfffffe6, 0xfffffe7, // 0-7
  0xfffffe8, 0xffffea, 0x3ffffffc, 0xfffffe9, 0xfffffea, 0x3ffffffd, 0xfffffeb, 0xfffffec, // 8-15
  0xfffffed, 0xfffffee, 0xfffffef, 0xffffff0, 0xffffff1, 0xffffff2, 0x3ffffffe, 0xffffff3, // 16-23
  0xffffff4, 0xffffff5, 0xffffff6, 0xffffff7, 0xffffff8, 0xffffff9, 0xffffffa, 0xffffffb, // 24-31
  0x14, 0x3f8, 0x3f9, 0xffa, 0x1ff9, 0x15, 0xf8, 0x7fa, // 32-39
  0x3fa, 0x3fb, 0xf9, 0x7fb, 0xfa, 0x16, 0x17, 0x18, // 40-47
  0x0, 0x1, 0x2, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, // 48-55
  0x1e, 0x1f, 0x5c, 0xfb, 0x7ffc, 0x20, 0xffb, 0x3fc, // 56-63
  0x1ffa, 0x21, 0x5d, 0x5e, 0x5f, 0x60, 0x61, 0x62, // 64-71
  0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, // 72-79
  0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, // 80-87
  0xfc, 0x73, 0xfd, 0x1ffb, 0x7fff0, 0x1ffc, 0x3ffc, 0x22, // 88-95
  0x7ffd, 0x3, 0x23, 0x4, 0x24, 0x5, 0x25, 0x26, // 96-103
  0x27, 0x6, 0x74, 0x75, 0x28, 0x29, 0x2a, 0x7, // 104-111
  0x2b, 0x76, 0x2c, 0x8, 0x9, 0x2d, 0x77, 0x78, // 112-119
  0x79, 0x7a, 0x7b, 0x7ffe, 0x7fc, 0x3ffd, 0x1ffd, 0xffffffc, // 120-127
  0xfffe6, 0x3fffd2, 0xfffe7, 0xfffe8, 0x3fffd3, 0x3fffd4, 0x3fffd5, 0x7fffd9, // 128-135
  0x3fffd6, 0x7fffda, 0x7fffdb, 0x7fffdc, 0x7fffdd, 0x7fffde, 0xffffeb, 0x7fffdf, // 136-143
  0xffffec, 0xffffed, 0x3fffd7, 0x7fffe0, 0xffffee, 0x7fffe1, 0x7fffe2, 0x7fffe3, // 144-151
  0x7fffe4, 0x1fffdc, 0x3fffd8, 0x7fffe5, 0x3fffd9, 0x7fffe6, 0x7fffe7, 0xffffef, // 152-159
  0x3fffda, 0x1fffdd, 0xfffe9, 0x3fffdb, 0x3fffdc, 0x7fffe8, 0x7fffe9, 0x1fffde, // 160-167
  0x7fffea, 0x3fffdd, 0x3fffde, 0xfffff0, 0x1fffdf, 0x3fffdf, 0x7fffeb, 0x7fffec, // 168-175
  0x1fffe0, 0x1fffe1, 0x3fffe0, 0x1fffe2, 0x7fffed, 0x3fffe1, 0x7fffee, 0x7fffef, // 176-183
  0xfffea, 0x3fffe2, 0x3fffe3, 0x3fffe4, 0x7ffff0, 0x3fffe5, 0x3fffe6, 0x7ffff1, // 184-191
  0x3ffffe0, 0x3ffffe1, 0xfffeb, 0x7fff1, 0x3fffe7, 0x7ffff2, 0x3fffe8, 0x1ffffec, // 192-199
  0x3ffffe2, 0x3ffffe3, 0x3ffffe4, 0x7ffffde, 0x7ffffdf, 0x3ffffe5, 0xfffff1, 0x1ffffed, // 200-207
  0x7fff2, 0x1fffe3, 0x3ffffe6, 0x7ffffe0, 0x7ffffe1, 0x3ffffe7, 0x7ffffe2, 0xfffff2, // 208-215
  0x1fffe4, 0x1fffe5, 0x3ffffe8, 0x3ffffe9, 0xffffffd, 0x7ffffe3, 0x7ffffe4, 0x7ffffe5, // 216-223
  0xfffec, 0xfffff3, 0xfffed, 0x1fffe6, 0x3fffe9, 0x1fffe7, 0x1fffe8, 0x7ffff3, // 224-231
  0x3fffea, 0x3fffeb, 0x1ffffee, 0x1ffffef, 0xfffff4, 0xfffff5, 0x3ffffea, 0x7ffff4, // 232-239
  0x3ffffeb, 0x7ffffe6, 0x3ffffec, 0x3ffffed, 0x7ffffe7, 0x7ffffe8, 0x7ffffe9, 0x7ffffea, // 240-247
  0x7ffffeb, 0xffffffe, 0x7ffffec, 0x7ffffed, 0x7ffffee, 0x7ffffef, 0x7fffff0, 0x3ffffee, // 248-255
  0x3fffffff, // 256 (EOS)
]);
// biome-ignore format: sixteen symbols a row, labelled
export const HUFFMAN_CODE_LENGTHS = new Uint8Array([
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // 32-47
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // 48-63
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // 64-79
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 80-95
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // 96-111
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 112-127
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
  30, // 256 (EOS)
]);

/** The symbol that ends the code space: never sent, only its leading ones serve as padding. */
export const EOS = 256;

/*
 * Decoding walks the code tree four bits at a time. Each state is an internal node of the tree
 * (there are 256: one fewer than the 257 leaves, the code being complete), the root being state 0
 * and the position after a whole symbol. For every state and nibble a table entry, built once
 * here, gives the next state and the symbol the nibble completed, if any; since no code is shorter
 * than 5 bits a nibble completes at most one. Two table reads per input octet and no per-bit work.
 */
const STATE_COUNT = 256;
const NEXT_STATE_MASK = 0xff;
const SYMBOL_SHIFT = 8;
const SYMBOL_MASK = 0xff;
const EMITS = 1 << 16;
/** The nibble runs into EOS, which RFC 7541 section 5.2 makes a decoding error. */
const FAILS = 1 << 17;

const TRANSITIONS = new Uint32Array(STATE_COUNT * 16);
/** States where the string may end: the root, or 1-7 bits into EOS (padding of ones). */
const ACCEPTING = new Uint8Array(STATE_COUNT);
/** States reached from the root by ones only, i.e. inside EOS; to say what bad padding was. */
const INSIDE_EOS = new Uint8Array(STATE_COUNT);

buildDecoder();

function buildDecoder(): void {
  // The tree: for internal node `n`, `children[2n + bit]` is a node id (>= 0) or ~symbol (< 0).
  const children = new Int16Array(STATE_COUNT * 2);
  let nodeCount = 1;
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const code = HUFFMAN_CODES[symbol] as number;
    const length = HUFFMAN_CODE_LENGTHS[symbol] as number;
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((code >>> bit) & 1);
      if (bit === 0) {
        children[slot] = ~symbol;
      } else {
        if (children[slot] === 0) children[slot] = nodeCount++;
        node = children[slot] as number;
      }
    }
  }
  // Root → 1 → 11 → …, the path into EOS: the root and the next seven nodes (1 to 7 bits of
  // padding) are where a string may end.
  let node = 0;
  for (let depth = 0; node >= 0; depth++) {
    INSIDE_EOS[node] = 1;
    if (depth <= 7) ACCEPTING[node] = 1;
    node = children[2 * node + 1] as number;
  }
  for (let state = 0; state < STATE_COUNT; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let at = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = children[2 * at + ((nibble >>> bit) & 1)] as number;
        if (next >= 0) {
          at = next;
        } else if (~next === EOS) {
          entry |= FAILS;
          break;
        } else {
          entry |= EMITS | (~next << SYMBOL_SHIFT);
          at = 0;
        }
      }
      TRANSITIONS[state * 16 + nibble] = entry | at;
    }
  }
}

/** Decoded octets land here before becoming a string; grown when a longer string comes. */
let scratch = Buffer.allocUnsafe(256);

/**
 * Decodes the Huffman-coded string in `bytes[start, end)` (RFC 7541 section 5.2) to a latin1 string, one
 * char per decoded octet. Throws `HpackError` for an EOS symbol, padding longer than 7 bits, or
 * padding that is not all ones.
 */
export function decodeHuffman(bytes: Uint8Array, start: number, end: number): string {
  // Every code is at least 5 bits long, which bounds the decoded length.
  const maxLength = Math.floor(((end - start) * 8) / 5);
  if (scratch.length < maxLength) {
    scratch = Buffer.allocUnsafe(Math.max(maxLength, scratch.length * 2));
  }
  const out = scratch;
  let length = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const octet = bytes[i] as number;
    let entry = TRANSITIONS[(state << 4) | (octet >>> 4)] as number;
    if ((entry & FAILS) !== 0) throw new HpackError("Huffman-coded string contains EOS");
    if ((entry & EMITS) !== 0) out[length++] = (entry >>> SYMBOL_SHIFT) & SYMBOL_MASK;
    state = entry & NEXT_STATE_MASK;
    entry = TRANSITIONS[(state << 4) | (octet & 0xf)] as number;
    if ((entry & FAILS) !== 0) throw new HpackError("Huffman-coded string contains EOS");
    if ((entry & EMITS) !== 0) out[length++] = (entry >>> SYMBOL_SHIFT) & SYMBOL_MASK;
    state = entry & NEXT_STATE_MASK;
  }
  if (ACCEPTING[state] !== 1) {
    throw new HpackError(
      INSIDE_EOS[state] === 1
        ? "Huffman-coded string has padding longer than 7 bits"
        : "Huffman-coded string ends in padding that is not all ones",
    );
  }
  return out.toString("latin1", 0, length);
}
