import type { Clock } from "@destination/core";

/** A running schedule; `stop()` clears the timer and waits for a run in progress. */
export interface AuditSchedule {
  stop(): Promise<void>;
}

/** ±10 %: replicas started together drift apart rather than list the API server in step. */
const JITTER = 0.1;

/** The delay before the next run: `intervalMs` jittered by ±10 %. */
export function jitteredDelay(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * Runs `run` every `intervalMs` (jittered), the next delay counted from the end of the last
 * run, so runs never overlap however long one takes.
 */
export function scheduleAudits(
  run: () => Promise<unknown>,
  intervalMs: number,
  clock: Clock,
  random: () => number = Math.random,
): AuditSchedule {
  let stopped = false;
  let timer: unknown;
  let running: Promise<unknown> | undefined;
  const next = () => {
    if (stopped) return;
    timer = clock.setTimeout(
      () => {
        running = run().finally(() => {
          running = undefined;
          next();
        });
      },
      jitteredDelay(intervalMs, random),
    );
  };
  next();
  return {
    async stop() {
      stopped = true;
      clock.clearTimeout(timer);
      await running;
    },
  };
}
