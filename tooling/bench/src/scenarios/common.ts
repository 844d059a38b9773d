import { NODES } from "../fixtures.js";
import type { WorkerStats } from "../protocol.js";
import { sumMetric } from "../stats.js";
import type { Worker } from "../worker.js";

export interface ScenarioContext {
  readonly cpuProfDir: string | undefined;
  readonly heapSnapshotDir: string | undefined;
  /** Progress lines (stderr), so stdout keeps only the table. */
  readonly log: (line: string) => void;
}

export const MiB = 1024 * 1024;

export function nodeName(i: number): string {
  return `node-${i % NODES}`;
}

export async function metricsText(adminPort: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${adminPort}/metrics`);
  return res.text();
}

export async function metricSum(adminPort: number, name: string): Promise<number> {
  return sumMetric(await metricsText(adminPort), name);
}

/** Polls until the server reports no endpoint subscribers (bounded): the last streams are gone. */
export async function waitForNoSubscribers(adminPort: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await metricSum(adminPort, "endpoints_subscribers")) === 0) return;
    await sleep(100);
  }
  throw new Error(`endpoint subscribers still open after ${timeoutMs} ms`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Memory after a forced GC, CPU and encode counts of a child; optionally a heap snapshot. */
export async function stats(worker: Worker, heapSnapshot?: string): Promise<WorkerStats> {
  const reply = await worker.request(
    { type: "stats", ...(heapSnapshot !== undefined ? { heapSnapshot } : {}) },
    "stats",
    300_000,
  );
  return reply.stats;
}

/** The server's overflow counters of all three stream kinds (Get, profile, endpoint profile). */
export async function overflows(adminPort: number): Promise<number> {
  const text = await metricsText(adminPort);
  return (
    sumMetric(text, "endpoint_updates_queue_overflow") +
    sumMetric(text, "profile_updates_queue_overflow") +
    sumMetric(text, "endpoint_profile_updates_queue_overflow")
  );
}

/**
 * Runs `phase`, CPU-profiling the child meanwhile when `--cpu-prof DIR` was given; the profile
 * is written to `DIR/<name>.cpuprofile`.
 */
export async function profiled<T>(
  worker: Worker,
  ctx: ScenarioContext,
  name: string,
  phase: () => Promise<T>,
): Promise<T> {
  if (ctx.cpuProfDir === undefined) return phase();
  await worker.request({ type: "profileStart" }, "ok");
  try {
    return await phase();
  } finally {
    const path = `${ctx.cpuProfDir}/${name}.cpuprofile`;
    await worker.request({ type: "profileStop", path }, "ok");
    ctx.log(`cpu profile: ${path}`);
  }
}
