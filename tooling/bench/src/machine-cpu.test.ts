import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { busyPercentBetween, machineBusyPercentSince, machineCpu } from "./machine-cpu.js";
import { mainThreadRunQueueWaitMs } from "./server-process.js";

function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // keep this thread on a core
  }
}

describe("busyPercentBetween", () => {
  it("is the busy part of the time that passed, not of the time since boot", () => {
    const from = { busyMs: 9_000, totalMs: 10_000 };
    expect(busyPercentBetween(from, { busyMs: 9_250, totalMs: 11_000 })).toBe(25);
    expect(busyPercentBetween(from, { busyMs: 10_000, totalMs: 11_000 })).toBe(100);
  });

  it("is 0 when no time passed", () => {
    const at = { busyMs: 5, totalMs: 10 };
    expect(busyPercentBetween(at, at)).toBe(0);
  });
});

describe("machineBusyPercentSince", () => {
  it("counts a core kept busy as busy time", () => {
    const since = machineCpu();
    spin(300);
    const busy = machineBusyPercentSince(since);
    // This thread alone is one core's share; other processes can only add to it.
    expect(busy).toBeGreaterThanOrEqual(50 / availableParallelism());
    expect(busy).toBeLessThanOrEqual(100);
  });
});

describe.runIf(process.platform === "linux")("mainThreadRunQueueWaitMs", () => {
  it("reads a thread's time spent waiting for a core, which only grows", () => {
    const before = mainThreadRunQueueWaitMs(process.pid);
    spin(50);
    const after = mainThreadRunQueueWaitMs(process.pid);
    expect(before).toBeGreaterThanOrEqual(0);
    expect(after).toBeGreaterThanOrEqual(before as number);
  });

  it("is undefined for a process that does not exist", () => {
    expect(mainThreadRunQueueWaitMs(2 ** 30)).toBeUndefined();
  });
});
