import { ManualClock } from "@destination/test-support/manual-clock";
import { describe, expect, it } from "vitest";

describe("ManualClock", () => {
  it("runs due timers in order of due time, then of creation, each at its own time", () => {
    const clock = new ManualClock(1000);
    const ran: string[] = [];
    const at = (name: string) => () => void ran.push(`${name}@${clock.now()}`);
    clock.setTimeout(at("b"), 20);
    clock.setTimeout(at("a"), 10);
    clock.setTimeout(at("c"), 20);
    clock.setTimeout(at("late"), 100);
    clock.advance(50);
    expect(ran).toEqual(["a@1010", "b@1020", "c@1020"]);
    expect(clock.now()).toBe(1050);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextDueInMs).toBe(50);
  });

  it("runs timers set by a timer when they fall due within the same advance", () => {
    const clock = new ManualClock();
    const ran: number[] = [];
    clock.setTimeout(() => {
      ran.push(clock.now());
      clock.setTimeout(() => ran.push(clock.now()), 5);
      clock.setTimeout(() => ran.push(clock.now()), 50);
    }, 5);
    clock.advance(20);
    expect(ran).toEqual([5, 10]);
  });

  it("repeats an interval until it is cleared, and never runs a cleared timeout", () => {
    const clock = new ManualClock();
    let ticks = 0;
    const interval = clock.setInterval(() => ticks++, 10);
    const timeout = clock.setTimeout(() => ticks--, 15);
    clock.clearTimeout(timeout);
    clock.advance(35);
    expect(ticks).toBe(3);
    clock.clearInterval(interval);
    clock.advance(100);
    expect(ticks).toBe(3);
    expect(clock.pendingTimers).toBe(0);
  });

  it("runNext jumps to the earliest timer", () => {
    const clock = new ManualClock();
    const ran: number[] = [];
    clock.setTimeout(() => ran.push(clock.now()), 30);
    expect(clock.runNext()).toBe(true);
    expect(ran).toEqual([30]);
    expect(clock.runNext()).toBe(false);
  });
});
