import { describe, expect, it } from "vitest";
import { GoDurationError, parseGoDuration } from "./duration.js";

describe("parseGoDuration", () => {
  it.each([
    ["1h30m", 5_400_000_000_000n],
    ["1.5s", 1_500_000_000n],
    ["-1s", -1_000_000_000n],
    ["200ms", 200_000_000n],
    ["1us", 1_000n],
    ["1\u00b5s", 1_000n],
    ["1\u03bcs", 1_000n],
    ["3ns", 3n],
    ["0", 0n],
    ["-0", 0n],
    ["+0", 0n],
    ["0s", 0n],
    [".5s", 500_000_000n],
    ["5.s", 5_000_000_000n],
    ["1h1h", 7_200_000_000_000n],
    ["+2m", 120_000_000_000n],
    ["1.0000000001h", 3_600_000_000_360n],
    ["2562047h47m16.854775807s", 9_223_372_036_854_775_807n],
    ["-2562047h47m16.854775808s", -9_223_372_036_854_775_808n],
    ["0.123456789123456789123s", 123_456_789n],
  ])("%s → %d ns", (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos);
  });

  it.each([
    ["", /invalid duration ""/],
    ["1d", /unknown unit "d"/],
    ["1", /missing unit/],
    ["1s2", /missing unit/],
    [".", /invalid duration/],
    ["-", /invalid duration/],
    ["s", /invalid duration/],
    ["--1s", /invalid duration/],
    ["1 s", /unknown unit " s"/],
    ["1S", /unknown unit "S"/],
    ["2562047h47m16.854775808s", /invalid duration/],
    ["9223372036854775808ns", /invalid duration/],
    ["99999999999999999999h", /invalid duration/],
  ])("rejects %j", (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(GoDurationError);
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});
