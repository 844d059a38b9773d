import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HpackDecoder } from "./hpack-decoder.js";
import { encodeHeaderBlock } from "./hpack-encoder.js";
import { STATIC_TABLE } from "./hpack-static-table.js";

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

function hexOf(fields: [string, string][]): string {
  return encodeHeaderBlock(fields).toString("hex");
}

function latin1Hex(text: string): string {
  return Buffer.from(text, "latin1").toString("hex");
}

describe("encodeHeaderBlock", () => {
  it("indexes a field the static table holds exactly, in one octet (RFC 7541 C.2.4)", () => {
    expect(hexOf([[":method", "GET"]])).toBe("82");
    expect(hexOf([[":status", "200"]])).toBe("88");
    expect(hexOf([["accept-encoding", "gzip, deflate"]])).toBe("90");
  });

  it("indexes every static entry by its own index, the lowest for a repeated name", () => {
    STATIC_TABLE.forEach(([name, value], i) => {
      expect(encodeHeaderBlock([[name, value]]), `${name}: ${value}`).toEqual(
        Buffer.of(0x80 | (i + 1)),
      );
    });
  });

  it("writes a literal without indexing, name indexed, for a static name (RFC 7541 C.2.2)", () => {
    expect(hexOf([[":path", "/sample/path"]])).toBe("040c2f73616d706c652f70617468");
    // :status first appears at index 8.
    expect(hexOf([[":status", "201"]])).toBe(`0803${latin1Hex("201")}`);
    // content-type is index 31: past the 4-bit prefix, 15 then a continuation octet of 16.
    expect(hexOf([["content-type", "application/grpc"]])).toBe(
      `0f1010${latin1Hex("application/grpc")}`,
    );
  });

  it("writes a literal without indexing with a new name otherwise", () => {
    expect(hexOf([["grpc-status", "0"]])).toBe(
      `000b${latin1Hex("grpc-status")}01${latin1Hex("0")}`,
    );
    expect(hexOf([["x-empty", ""]])).toBe(`0007${latin1Hex("x-empty")}00`);
  });

  it("writes a string length past the 7-bit prefix as a continued integer", () => {
    const value = "v".repeat(1000);
    // 1000 = 127 + 873 = 127 + 0x69 + 6 * 128.
    expect(hexOf([["x-long", value]])).toBe(`0006${latin1Hex("x-long")}7fe906${latin1Hex(value)}`);
  });

  it("writes each char as one octet, latin1", () => {
    expect(hexOf([["x-bytes", "\u00e9\u0000\u00ff"]])).toBe(`0007${latin1Hex("x-bytes")}03e900ff`);
  });

  it("encodes an empty list as an empty block", () => {
    expect(encodeHeaderBlock([])).toHaveLength(0);
  });

  it("round-trips through the decoder without touching its dynamic table", () => {
    const name = fc.oneof(
      fc.constantFrom(...STATIC_TABLE.map(([staticName]) => staticName)),
      fc.stringMatching(/^[a-z0-9-]{1,200}$/),
    );
    const latin1Char = fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code));
    const value = fc.oneof(
      fc.constantFrom(...STATIC_TABLE.map(([, staticValue]) => staticValue)),
      fc.string({ unit: latin1Char }),
      // Lengths around and past the 7-bit prefix.
      fc.string({ unit: latin1Char, minLength: 120, maxLength: 400 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 20 }), (fields) => {
        // A fresh decoder's dynamic table is empty: an index into it would fail, an insert show.
        const decoder = new HpackDecoder();
        expect(decoder.decode(encodeHeaderBlock(fields), NO_LIMIT)).toEqual(fields.flat());
        expect(decoder.dynamicTableEntries()).toEqual([]);
      }),
    );
  });
});
