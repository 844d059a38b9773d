import { ManualClock } from "@destination/test-support/manual-clock";
import { describe, expect, it } from "vitest";
import { keepAliveIdleMs, SilenceWatchdog, watchSilenceMs } from "./api-liveness.js";

describe("SilenceWatchdog", () => {
  it("fires once, after the limit without a touch", () => {
    const clock = new ManualClock();
    let fired = 0;
    new SilenceWatchdog(clock, 1000, () => fired++);
    clock.advance(999);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
    clock.advance(10_000);
    expect(fired).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it("counts the limit from the last touch, with one timer at a time", () => {
    const clock = new ManualClock();
    let fired = 0;
    const watchdog = new SilenceWatchdog(clock, 1000, () => fired++);
    for (let i = 0; i < 30; i++) {
      clock.advance(100);
      watchdog.touch();
      expect(clock.pendingTimers).toBe(1);
    }
    clock.advance(999);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
  });

  it("never fires once stopped", () => {
    const clock = new ManualClock();
    let fired = 0;
    new SilenceWatchdog(clock, 1000, () => fired++).stop();
    clock.advance(5000);
    expect(fired).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("the bounds derived from the silence timeout", () => {
  it("leaves keepalive's ten 1 s probes inside the bound, idling 1 s at least", () => {
    expect(keepAliveIdleMs(12_000)).toBe(2_000);
    expect(keepAliveIdleMs(30_000)).toBe(20_000);
    expect(keepAliveIdleMs(3_000)).toBe(1_000);
  });

  it("gives a watch the bookmark period more", () => {
    expect(watchSilenceMs(12_000)).toBe(72_000);
  });
});
