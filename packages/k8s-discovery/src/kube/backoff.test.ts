import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Backoff, backoffDelayMs, DEFAULT_BACKOFF } from "./backoff.js";

describe("backoffDelayMs", () => {
  const policy = { baseMs: 250, capMs: 30_000 };

  it("doubles the ceiling per attempt up to the cap", () => {
    const ceiling = (attempt: number) => backoffDelayMs(attempt, policy, () => 0.999999) + 1;
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map(ceiling)).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    expect(ceiling(10_000)).toBe(30_000);
  });

  it("draws the delay uniformly below the ceiling (full jitter)", () => {
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(1000);
  });

  it("stays within [0, min(cap, base·2^attempt)) for any attempt and draw", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (attempt, draw, baseMs, capMs) => {
          const delay = backoffDelayMs(attempt, { baseMs, capMs }, () => draw);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.min(capMs, baseMs * 2 ** Math.min(attempt, 31)));
        },
      ),
    );
  });
});

describe("Backoff", () => {
  it("grows with each failure and starts over after a reset", () => {
    const backoff = new Backoff(DEFAULT_BACKOFF, () => 0.999999);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([249, 499, 999]);
    expect(backoff.attempts).toBe(3);
    backoff.reset();
    expect(backoff.attempts).toBe(0);
    expect(backoff.next()).toBe(249);
  });
});
