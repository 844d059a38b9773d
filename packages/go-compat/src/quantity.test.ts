import { describe, expect, it } from "vitest";
import { QuantityError, quantityMilliValue, quantityToWeight } from "./quantity.js";

describe("quantityToWeight", () => {
  it.each([
    ["1", 10000],
    [1, 10000],
    ["500m", 5000],
    ["0.5", 5000],
    [0.5, 5000],
    ["100", 1000000],
    ["1k", 10000000],
    ["1e3", 10000000],
    ["1E3", 10000000],
    ["1Ki", 10240000],
    ["0", 0],
    ["-0", 0],
    [".5", 5000],
    ["1.", 10000],
    [" 1 ", 10000],
    ["+1", 10000],
  ] as const)("%j → %d", (quantity, weight) => {
    expect(quantityToWeight(quantity)).toBe(weight);
  });

  it("rounds fractions of a thousandth up", () => {
    expect(quantityMilliValue("1u")).toBe(1n);
    expect(quantityMilliValue("1500u")).toBe(2n);
    expect(quantityMilliValue("1n")).toBe(1n);
    expect(quantityMilliValue("0.0001Ki")).toBe(103n);
  });

  it("wraps negative weights modulo 2³² instead of rejecting them", () => {
    expect(quantityToWeight("-1")).toBe(4294957296);
    expect(quantityToWeight("-500m")).toBe(4294962296);
    expect(quantityToWeight("-1.5Ki")).toBe(4279607296);
  });

  it("rounds negative fractions the way each upstream path does", () => {
    // Short decimals round away from zero...
    expect(quantityMilliValue("-1500u")).toBe(-2n);
    // ...while values on the arbitrary-precision path truncate and then add one.
    expect(quantityMilliValue("-0.0001Ki")).toBe(-101n);
    expect(quantityToWeight("-0.0001Ki")).toBe(4294966286);
  });

  it("wraps like an int64 beyond its range", () => {
    // 12345678901234567890 × 1000 overflows int64 before the uint32 conversion.
    expect(quantityToWeight("12345678901234567890")).toBe(1821813536);
    // Binary values are capped at 2⁶³−1 first; ×1000 then wraps to −1000.
    expect(quantityMilliValue("9Ei")).toBe(-1000n);
    expect(quantityToWeight("8Ei")).toBe(4294957296);
    // A short decimal that overflows while being scaled reads as 0.
    expect(quantityToWeight("10E")).toBe(0);
    expect(quantityToWeight("1e400")).toBe(0);
  });

  it("handles absurd exponents without building huge numbers", () => {
    expect(quantityToWeight("1234567890123456789012e999999999")).toBe(0);
    expect(quantityToWeight("1234567890123456789012e-999999999")).toBe(10);
  });

  it.each([
    "",
    "   ",
    "abc",
    "1K",
    "1.2.3",
    "--1",
    "1e",
    "1e+",
    "1Mi5",
    "1 k",
    "1e99999999999999999999",
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])("rejects %j", (quantity) => {
    expect(() => quantityToWeight(quantity)).toThrow(QuantityError);
  });
});
