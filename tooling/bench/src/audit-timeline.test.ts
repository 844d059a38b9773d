import { describe, expect, it } from "vitest";
import { type AuditSample, auditTimeline, netRunCpuMs, percentOfCore } from "./audit-timeline.js";

/**
 * A server idling at 10 ms of CPU per s, sampled every 100 ms, whose audit runs (1 s each, 500
 * ms of CPU above idle, RSS 100 → 150 MiB) end at 3 s and at 13 s.
 */
function timeline(): AuditSample[] {
  const out: AuditSample[] = [];
  let cpu = 0;
  let runs = 0;
  let sum = 0;
  for (let t = 0; t <= 20_000; t += 100) {
    const inRun = (t > 2000 && t <= 3000) || (t > 12_000 && t <= 13_000);
    cpu += 1 + (inRun ? 50 : 0);
    if (t === 3000 || t === 13_000) {
      runs++;
      sum += 1;
    }
    out.push({
      atMs: t + 50, // runs end between samples
      cpuMs: cpu,
      rssMb: inRun ? 150 : 100,
      runs,
      clean: runs,
      durationSumS: sum,
    });
  }
  return out;
}

const OPTIONS = { marginMs: 300, idleAfterMs: 2000, idleForMs: 4000 };

describe("auditTimeline", () => {
  it("finds each run, its duration, and a window around it", () => {
    const { runs } = auditTimeline(timeline(), OPTIONS);
    expect(runs).toHaveLength(2);
    const [first] = runs;
    expect(first?.durationMs).toBe(1000);
    expect(first?.clean).toBe(true);
    // ended between 2950 and 3050: starts before 1950 − 300, ends after 3050 + 300
    expect(first?.windowStartMs).toBeLessThanOrEqual(1650);
    expect(first?.windowEndMs).toBeGreaterThanOrEqual(3350);
    expect(first?.rssBeforeMb).toBe(100);
    expect(first?.rssSampledPeakMb).toBe(150);
  });

  it("measures the idle rate between runs and subtracts it from each window", () => {
    const { runs, idleCpuMsPerS } = auditTimeline(timeline(), OPTIONS);
    expect(idleCpuMsPerS).toBeCloseTo(10, 6);
    for (const run of runs) expect(netRunCpuMs(run, idleCpuMsPerS)).toBeCloseTo(500, 6);
  });

  it("takes no idle window that a next run may overlap", () => {
    const { idleCpuMsPerS } = auditTimeline(timeline(), { ...OPTIONS, idleForMs: 7000 });
    // after the first run the window would reach 12 s; after the second it passes the end
    expect(idleCpuMsPerS).toBeNaN();
  });

  it("marks a run that was not clean, and skips a step of two runs between samples", () => {
    const samples = timeline().map((s) => (s.atMs > 13_000 ? { ...s, clean: s.clean - 1 } : s));
    const { runs } = auditTimeline(samples, OPTIONS);
    expect(runs.map((r) => r.clean)).toEqual([true, false]);
    const jumped = timeline().filter((s) => s.atMs < 2900 || s.atMs > 13_100);
    expect(auditTimeline(jumped, OPTIONS).runs).toHaveLength(0);
  });

  it("nets nothing off when no idle rate is known", () => {
    const [run] = auditTimeline(timeline(), OPTIONS).runs;
    expect(run && netRunCpuMs(run, Number.NaN)).toBe(run?.windowCpuMs);
  });
});

describe("percentOfCore", () => {
  it("is the CPU of a run over the interval", () => {
    expect(percentOfCore(3000, 300_000)).toBe(1);
  });
});
