import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HpackError } from "./hpack-error.js";
import { decodeHuffman, EOS, HUFFMAN_CODE_LENGTHS, HUFFMAN_CODES } from "./hpack-huffman.js";

/** Packs `[code, length]` pieces MSB first, then ones: to the octet's end or `padding` of them. */
function packBits(pieces: readonly (readonly [number, number])[], padding = -1): Uint8Array {
  const bits: number[] = [];
  for (const [code, length] of pieces) {
    for (let bit = length - 1; bit >= 0; bit--) bits.push(Math.floor(code / 2 ** bit) % 2);
  }
  const padLength = padding >= 0 ? padding : (8 - (bits.length % 8)) % 8;
  for (let i = 0; i < padLength; i++) bits.push(1);
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    if (bit === 1) bytes[i >> 3] = (bytes[i >> 3] ?? 0) | (0x80 >> (i & 7));
  });
  return bytes;
}

function symbol(s: number): [number, number] {
  return [HUFFMAN_CODES[s] ?? 0, HUFFMAN_CODE_LENGTHS[s] ?? 0];
}

/** A plain Huffman encoder over the table, to check the decoder against. */
function encodeHuffman(text: string): Uint8Array {
  return packBits(Array.from(text, (char) => symbol(char.charCodeAt(0))));
}

const latin1Char = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));

function decodeAll(bytes: Uint8Array): string {
  return decodeHuffman(bytes, 0, bytes.length);
}

describe("HUFFMAN_CODES", () => {
  it("is the canonical code of its lengths, complete, as RFC 7541 Appendix B's is", () => {
    expect(HUFFMAN_CODES.length).toBe(257);
    expect(HUFFMAN_CODE_LENGTHS.length).toBe(257);
    // Canonical: ordered by (length, symbol), each code is the previous plus one, shifted left
    // by the length increase. A single wrong digit in either array breaks this.
    const order = Array.from({ length: 257 }, (_, s) => s).sort(
      (a, b) => (HUFFMAN_CODE_LENGTHS[a] ?? 0) - (HUFFMAN_CODE_LENGTHS[b] ?? 0) || a - b,
    );
    let expected = 0;
    let previousLength = HUFFMAN_CODE_LENGTHS[order[0] ?? 0] ?? 0;
    let kraft = 0;
    for (const [rank, s] of order.entries()) {
      const length = HUFFMAN_CODE_LENGTHS[s] ?? 0;
      if (rank > 0) expected = (expected + 1) * 2 ** (length - previousLength);
      previousLength = length;
      expect(HUFFMAN_CODES[s], `symbol ${s}`).toBe(expected);
      kraft += 2 ** -length;
    }
    expect(kraft).toBe(1);
    // Anchors from the RFC's table: '0' is the first 5-bit code, EOS is 30 ones.
    expect(symbol(0x30)).toEqual([0x0, 5]);
    expect(symbol(0x61)).toEqual([0x3, 5]);
    expect(symbol(EOS)).toEqual([0x3fffffff, 30]);
  });
});

describe("decodeHuffman", () => {
  it("decodes the Huffman-coded strings of RFC 7541 Appendix C.4 and C.6", () => {
    const vectors: [string, string][] = [
      ["f1e3c2e5f23a6ba0ab90f4ff", "www.example.com"],
      ["a8eb10649cbf", "no-cache"],
      ["25a849e95ba97d7f", "custom-key"],
      ["25a849e95bb8e8b4bf", "custom-value"],
      ["6402", "302"],
      ["aec3771a4b", "private"],
      ["d07abe941054d444a8200595040b8166e082a62d1bff", "Mon, 21 Oct 2013 20:13:21 GMT"],
      ["9d29ad171863c78f0b97c8e9ae82ae43d3", "https://www.example.com"],
      ["640eff", "307"],
      ["9bd9ab", "gzip"],
      [
        "94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007",
        "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
      ],
    ];
    for (const [hex, text] of vectors) expect(decodeAll(Buffer.from(hex, "hex")), text).toBe(text);
  });

  it("decodes only the given range of the buffer", () => {
    const coded = Buffer.from("a8eb10649cbf", "hex");
    const bytes = Buffer.concat([Buffer.from([0xff, 0x00]), coded, Buffer.from([0x00, 0xff])]);
    expect(decodeHuffman(bytes, 2, 2 + coded.length)).toBe("no-cache");
    expect(decodeHuffman(bytes, 2, 2)).toBe("");
  });

  it("decodes every octet, alone and in sequence, to the latin1 char of the same code", () => {
    let all = "";
    for (let octet = 0; octet < 256; octet++) {
      const char = String.fromCharCode(octet);
      expect(decodeAll(encodeHuffman(char)), `octet ${octet}`).toBe(char);
      all += char;
    }
    expect(decodeAll(encodeHuffman(all))).toBe(all);
  });

  it("decodes what the table encodes, for any latin1 string", () => {
    fc.assert(
      fc.property(fc.string({ unit: latin1Char }), (text) => {
        expect(decodeAll(encodeHuffman(text))).toBe(text);
      }),
    );
  });

  it("rejects a string that contains EOS", () => {
    const withEos = packBits([symbol(0x61), symbol(EOS), symbol(0x61)]);
    expect(() => decodeAll(withEos)).toThrow(HpackError);
    expect(() => decodeAll(withEos)).toThrow(/EOS/);
    // 32 ones: EOS, then what would be padding.
    expect(() => decodeAll(packBits([symbol(EOS)], 2))).toThrow(/EOS/);
  });

  it("accepts up to 7 bits of padding and rejects 8 or more", () => {
    // 'a' is 5 bits and ' ' 6: 17 bits of symbols leave 7 of padding in the third octet.
    const sevenBits = packBits([symbol(0x61), symbol(0x20), symbol(0x20)]);
    expect(sevenBits).toHaveLength(3);
    expect(decodeAll(sevenBits)).toBe("a  ");
    expect(decodeAll(packBits([symbol(0x61)], 3))).toBe("a");
    expect(() => decodeAll(packBits([symbol(0x61)], 11))).toThrow(/padding longer than 7 bits/);
    expect(() => decodeAll(Uint8Array.of(0xff))).toThrow(/padding longer than 7 bits/);
    expect(() => decodeAll(Uint8Array.of(0xff))).toThrow(HpackError);
  });

  it("rejects padding that is not the leading bits of EOS (all ones)", () => {
    // 'a' (00011) then 110: the padding has a zero.
    expect(() => decodeAll(Uint8Array.of(0b00011110))).toThrow(/not all ones/);
    // 'a' then 000: the start of another symbol, not padding.
    expect(() => decodeAll(Uint8Array.of(0b00011000))).toThrow(/not all ones/);
    expect(() => decodeAll(Uint8Array.of(0b00011000))).toThrow(HpackError);
  });
});
