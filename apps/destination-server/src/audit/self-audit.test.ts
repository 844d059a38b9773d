import { ManualClock } from "@destination/test-support/manual-clock";
import { describe, expect, it } from "vitest";
import { jitteredDelay, scheduleAudits } from "./self-audit.js";

describe("scheduleAudits", () => {
  it("jitters the interval by ±10 %", () => {
    expect(jitteredDelay(300_000, () => 0)).toBe(270_000);
    expect(jitteredDelay(300_000, () => 0.5)).toBe(300_000);
    expect(jitteredDelay(300_000, () => 1)).toBe(330_000);
  });

  it("counts each delay from the end of the last run, so runs never overlap", async () => {
    const clock = new ManualClock();
    let running = 0;
    let runs = 0;
    let finish: () => void = () => {};
    const schedule = scheduleAudits(
      () => {
        running += 1;
        runs += 1;
        expect(running).toBe(1);
        return new Promise<void>((resolve) => {
          finish = () => {
            running -= 1;
            resolve();
          };
        });
      },
      1_000,
      clock,
      () => 0.5,
    );
    clock.advance(999);
    expect(runs).toBe(0);
    clock.advance(1);
    expect(runs).toBe(1);
    clock.advance(5_000); // the run is still going: nothing new starts
    expect(runs).toBe(1);
    finish();
    await Promise.resolve();
    await Promise.resolve();
    clock.advance(1_000);
    expect(runs).toBe(2);
    finish();
    await schedule.stop();
    clock.advance(10_000);
    expect(runs).toBe(2);
  });
});
