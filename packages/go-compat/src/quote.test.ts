import { describe, expect, it } from "vitest";
import { goQuote } from "./quote.js";

describe("goQuote (strconv.Quote)", () => {
  it("escapes quotes, backslashes and control characters", () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("\n\t\r\x07\x08\x0c\x0b")).toBe('"\\n\\t\\r\\a\\b\\f\\v"');
    expect(goQuote("\x00\x1f\x7f")).toBe('"\\x00\\x1f\\x7f"');
  });

  it("keeps printable Unicode and escapes the rest", () => {
    expect(goQuote("héllo 世界 🙂")).toBe('"héllo 世界 🙂"');
    expect(goQuote("\u00a0\u200b")).toBe('"\\u00a0\\u200b"');
    expect(goQuote("\u{e0001}")).toBe('"\\U000e0001"');
  });
});
