import { cpus } from "node:os";

/** Busy and total CPU time of every core of the machine, in ms, at one instant. */
export interface MachineCpu {
  readonly busyMs: number;
  readonly totalMs: number;
}

export function machineCpu(): MachineCpu {
  let busyMs = 0;
  let totalMs = 0;
  for (const { times } of cpus()) {
    const busy = times.user + times.nice + times.sys + times.irq;
    busyMs += busy;
    totalMs += busy + times.idle;
  }
  return { busyMs, totalMs };
}

/**
 * The share of the machine's CPU time that was busy since `since`, in percent: near 100, every
 * process of a measurement was queueing for a core, whatever any one of them needed.
 */
export function machineBusyPercentSince(since: MachineCpu): number {
  return busyPercentBetween(since, machineCpu());
}

/** The busy share of the CPU time between two readings, in percent. */
export function busyPercentBetween(from: MachineCpu, to: MachineCpu): number {
  const total = to.totalMs - from.totalMs;
  return total > 0 ? (100 * (to.busyMs - from.busyMs)) / total : 0;
}
