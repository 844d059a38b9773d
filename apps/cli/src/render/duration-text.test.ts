import { describe, expect, it } from "vitest";
import { formatDurationMs } from "./duration-text.js";

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
