// The arithmetic behind the restart test's bound (no API server needed).
import { describe, expect, it } from "vitest";
import { maxPlausibleDelays, maxRequestsAfterRestart } from "../src/backoff-bound.js";

describe("backoff bound", () => {
  it("allows the delays whose ceilings fit the window, then a few that must come out short", () => {
    // Ceilings 0.25, 0.5, 1, 2, 4, 8, 16, 30, 30 s against 1.5 s: the first three always fit,
    // then the chances multiply by 0.75, 0.375, 0.19, 0.094, 0.05, 0.05, 0.05, ...
    expect(maxPlausibleDelays(1500)).toBe(9);
    expect(maxRequestsAfterRestart(1500)).toBe(11);
    expect(maxPlausibleDelays(1500, { baseMs: 250, capMs: 30_000 }, 0.01)).toBe(6);
  });

  it("grows slowly with the window, as the ceilings double", () => {
    expect(maxPlausibleDelays(5000)).toBe(13);
    expect(maxPlausibleDelays(100)).toBeLessThan(maxPlausibleDelays(1500));
  });

  it("matches a simulation of the jittered delays", () => {
    // 20,000 simulated loops: the largest number of delays that fit in 1.5 s stays within the bound.
    let worst = 0;
    for (let run = 0; run < 20_000; run++) {
      let t = 0;
      let n = 0;
      for (;;) {
        t += Math.random() * Math.min(30_000, 250 * 2 ** n);
        if (t > 1500) break;
        n++;
      }
      worst = Math.max(worst, n);
    }
    expect(worst).toBeLessThanOrEqual(maxPlausibleDelays(1500));
  });
});
