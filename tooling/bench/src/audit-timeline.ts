/**
 * The audit scenario's arithmetic: audit runs found in a timeline of samples of the server
 * (its CPU and RSS from `/proc`, its audit counters from `/metrics`), each with the CPU it cost
 * above the process's idle rate.
 */

/** One reading of the server, taken every few hundred ms. */
export interface AuditSample {
  /** Monotonic ms. */
  readonly atMs: number;
  /** Process CPU (every thread), ms. */
  readonly cpuMs: number;
  readonly rssMb: number;
  /** `destination_audit_runs_total`, every result, and the `clean` series alone. */
  readonly runs: number;
  readonly clean: number;
  /** `destination_audit_duration_seconds_sum`. */
  readonly durationSumS: number;
}

export interface AuditRun {
  /** Index of the sample that first showed the run as ended. */
  readonly endSample: number;
  /** What the server measured (the histogram's sum moved by it). */
  readonly durationMs: number;
  readonly clean: boolean;
  /** The window that surely holds the run, and the process's CPU over it. */
  readonly windowStartMs: number;
  readonly windowEndMs: number;
  readonly windowCpuMs: number;
  /** RSS at the last sample before the window (the run not yet started). */
  readonly rssBeforeMb: number;
  /** The highest RSS sampled in the window. */
  readonly rssSampledPeakMb: number;
}

export interface TimelineOptions {
  /**
   * Added to each side of a run's window: the run's start is known from its end and duration
   * only to a sampling period, and its garbage may be collected just after it.
   */
  readonly marginMs: number;
  /** An idle window starts this long after a run ended and lasts `idleForMs`. */
  readonly idleAfterMs: number;
  readonly idleForMs: number;
}

export interface AuditTimeline {
  readonly runs: AuditRun[];
  /** The process's CPU per second between runs (median of the idle windows), ms/s. */
  readonly idleCpuMsPerS: number;
}

/** Last sample at or before `t` (the first one if none is). */
function sampleBefore(samples: readonly AuditSample[], t: number): AuditSample {
  let found = samples[0] as AuditSample;
  for (const s of samples) {
    if (s.atMs > t) break;
    found = s;
  }
  return found;
}

/** First sample at or after `t` (the last one if none is). */
function sampleAfter(samples: readonly AuditSample[], t: number): AuditSample {
  for (const s of samples) if (s.atMs >= t) return s;
  return samples.at(-1) as AuditSample;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The runs that ended within the timeline, one per step of the runs counter (a step of more
 * than one run between two samples cannot be split and is left out), and the idle CPU rate
 * from windows after each run that end before the next run can have started.
 */
export function auditTimeline(
  samples: readonly AuditSample[],
  options: TimelineOptions,
): AuditTimeline {
  const runs: AuditRun[] = [];
  for (let i = 1; i < samples.length; i++) {
    const prev = samples[i - 1] as AuditSample;
    const cur = samples[i] as AuditSample;
    if (cur.runs - prev.runs !== 1) continue;
    const durationMs = (cur.durationSumS - prev.durationSumS) * 1000;
    // The run ended after `prev` and started `durationMs` before its end.
    const start = sampleBefore(samples, prev.atMs - durationMs - options.marginMs);
    const end = sampleAfter(samples, cur.atMs + options.marginMs);
    let rssSampledPeakMb = 0;
    for (const s of samples) {
      if (s.atMs >= start.atMs && s.atMs <= end.atMs)
        rssSampledPeakMb = Math.max(rssSampledPeakMb, s.rssMb);
    }
    runs.push({
      endSample: i,
      durationMs,
      clean: cur.clean - prev.clean === 1,
      windowStartMs: start.atMs,
      windowEndMs: end.atMs,
      windowCpuMs: end.cpuMs - start.cpuMs,
      rssBeforeMb: start.rssMb,
      rssSampledPeakMb,
    });
  }
  const idleRates: number[] = [];
  runs.forEach((run, k) => {
    const from = (samples[run.endSample] as AuditSample).atMs + options.idleAfterMs;
    const to = from + options.idleForMs;
    const next = runs[k + 1];
    // The next run must not have begun by the end of the window.
    if (next !== undefined && next.windowStartMs < to) return;
    const last = samples.at(-1) as AuditSample;
    if (next === undefined && last.atMs < to) return;
    const a = sampleBefore(samples, from);
    const b = sampleAfter(samples, to);
    if (b.runs !== a.runs || b.atMs <= a.atMs) return;
    idleRates.push(((b.cpuMs - a.cpuMs) * 1000) / (b.atMs - a.atMs));
  });
  return { runs, idleCpuMsPerS: median(idleRates) };
}

/** A run's CPU above the idle rate over its window, ms. */
export function netRunCpuMs(run: AuditRun, idleCpuMsPerS: number): number {
  const idle = Number.isFinite(idleCpuMsPerS)
    ? (idleCpuMsPerS * (run.windowEndMs - run.windowStartMs)) / 1000
    : 0;
  return Math.max(0, run.windowCpuMs - idle);
}

/** CPU per run as a share of one core over the audit interval, in %. */
export function percentOfCore(cpuMsPerRun: number, intervalMs: number): number {
  return (cpuMsPerRun / intervalMs) * 100;
}
