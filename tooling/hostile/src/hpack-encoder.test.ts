import { describe, expect, it } from "vitest";
import {
  hpackInteger,
  indexed,
  literal,
  literalIndexed,
  tableSizeUpdate,
} from "./hpack-encoder.js";

// The examples of RFC 7541 Appendix C, byte for byte.
describe("HPACK encoding", () => {
  it("encodes integers with an N-bit prefix (C.1)", () => {
    expect(hpackInteger(10, 5)).toEqual(Buffer.from([0x0a]));
    expect(hpackInteger(1337, 5)).toEqual(Buffer.from([0x1f, 0x9a, 0x0a]));
    expect(hpackInteger(42, 8)).toEqual(Buffer.from([0x2a]));
  });

  it("encodes a literal with indexing (C.2.1) and without (C.2.2's form, new name)", () => {
    expect(literalIndexed("custom-key", "custom-header").toString("hex")).toBe(
      "400a637573746f6d2d6b65790d637573746f6d2d686561646572",
    );
    expect(literal("custom-key", "custom-header").toString("hex")).toBe(
      "000a637573746f6d2d6b65790d637573746f6d2d686561646572",
    );
  });

  it("encodes indexed fields (C.2.4) and table size updates (§6.3)", () => {
    expect(indexed(2)).toEqual(Buffer.from([0x82]));
    expect(indexed(200)).toEqual(Buffer.from([0xff, 0x49]));
    expect(tableSizeUpdate(0)).toEqual(Buffer.from([0x20]));
    expect(tableSizeUpdate(4096)).toEqual(Buffer.from([0x3f, 0xe1, 0x1f]));
  });
});
