import { describe, expect, it } from "vitest";
import { formatDurationMs, parseDurationMs, parseDurationOrZeroMs } from "./duration.js";

describe("formatDurationMs", () => {
  it.each([
    [0, "0s"],
    [0.25, "250µs"],
    [100, "100ms"],
    [1500, "1.5s"],
    [10_000, "10s"],
    [90_000, "1m30s"],
    [3_600_000, "1h"],
    [3_661_000, "1h1m1s"],
    [-200, "-200ms"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
  });
});

describe("parseDurationMs", () => {
  it.each([
    ["5s", 5000],
    ["500ms", 500],
    ["1m30s", 90_000],
    ["1.5s", 1500],
    [".5s", 500],
    ["2h", 7_200_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(["", "5", "s", "5x", "-1s", "0s", "5s ", "1..5s", "ms"])("rejects %j", (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});

describe("parseDurationOrZeroMs", () => {
  it.each([
    ["0", 0],
    ["0s", 0],
    ["2s", 2000],
    ["250ms", 250],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDurationOrZeroMs(text)).toBe(ms);
  });

  it.each(["", "2", "-1s", "00", "2x"])("rejects %j", (text) => {
    expect(parseDurationOrZeroMs(text)).toBeUndefined();
  });
});
