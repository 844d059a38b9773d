/**
 * Scale: a server child started on N pods (10 per service, one slice per service). The sample is
 * the time from the start of startDestinationServer (the initial list then flows through the
 * caches and watchers) to a client holding the full endpoint set of a Get; heap and RSS are read
 * after a forced GC, idle and then with one Get stream on every service.
 */
import { fromBinary, UpdateSchema } from "@destination/proto";
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority } from "../fixtures.js";
import type { ScenarioResult } from "../report.js";
import { nowMs, summarize } from "../stats.js";
import { Worker } from "../worker.js";
import { MiB, nodeName, profiled, type ScenarioContext, stats } from "./common.js";

interface Run {
  syncMs: number;
  readyMs: number;
  generateMs: number;
  heapMb: number;
  rssMb: number;
  subscribeAllMs: number;
  heapSubscribedMb: number;
  rssSubscribedMb: number;
}

function addressesIn(bytes: Buffer): number {
  const update = fromBinary(UpdateSchema, bytes).update;
  return update.case === "add" ? update.value.addrs.length : 0;
}

async function oneRun(
  plan: BenchPlan,
  ctx: ScenarioContext,
  pods: number,
  snapshot: boolean,
  run: number,
): Promise<Run> {
  const services = Math.ceil(pods / plan.scale.podsPerService);
  const worker = Worker.spawn("server-worker.js");
  const profile = run === 0;
  const sizes: number[] = [];
  try {
    const maybeProfiled = <T>(name: string, phase: () => Promise<T>) =>
      profile ? profiled(worker, ctx, name, phase) : phase();
    const { started, probe, group, lastMs } = await maybeProfiled(
      `scale-start-${pods}`,
      async () => {
        const started = await worker.request(
          {
            type: "start",
            dataset: { services, podsPerService: plan.scale.podsPerService },
            experiments: plan.experiments,
          },
          "started",
          180_000,
        );
        // The first Get answered with the full set: the first and the last service of the list.
        const probe = new ClientPool(started.grpcPort, 1);
        const group = new StreamGroup(
          probe,
          [0, services - 1].map((s) => ({ path: authority(s), nodeName: nodeName(s) })),
          (_i, bytes) => sizes.push(addressesIn(bytes)),
        );
        const { lastMs } = await group.waitFor(1, 60_000);
        return { started, probe, group, lastMs };
      },
    );
    if (sizes.some((n) => n !== plan.scale.podsPerService)) {
      throw new Error(`scale: a Get returned ${sizes.join(",")} addresses`);
    }
    const snapshotPath = (phase: string) =>
      snapshot && ctx.heapSnapshotDir !== undefined
        ? `${ctx.heapSnapshotDir}/scale-${pods}-${phase}.heapsnapshot`
        : undefined;
    const idle = await stats(worker, snapshotPath("idle"));
    if (idle.heapSnapshot !== undefined) ctx.log(`heap snapshot: ${idle.heapSnapshot}`);

    // Then one stream per service, to see what serving everything costs.
    const pool = new ClientPool(started.grpcPort, plan.connections);
    await pool.ready();
    const all: StreamSpec[] = Array.from({ length: services }, (_, s) => ({
      path: authority(s),
      nodeName: nodeName(s),
    }));
    const t0 = nowMs();
    const { everyone, served } = await maybeProfiled(`scale-subscribe-all-${pods}`, async () => {
      const everyone = new StreamGroup(pool, all);
      return { everyone, served: await everyone.waitFor(1, 120_000) };
    });
    const subscribed = await stats(worker, snapshotPath("subscribed"));
    if (subscribed.heapSnapshot !== undefined) ctx.log(`heap snapshot: ${subscribed.heapSnapshot}`);
    everyone.cancel();
    group.cancel();
    pool.close();
    probe.close();
    return {
      syncMs: lastMs - started.startStampMs,
      readyMs: started.readyStampMs - started.startStampMs,
      generateMs: started.generateMs,
      heapMb: idle.heapUsedBytes / MiB,
      rssMb: idle.rssBytes / MiB,
      subscribeAllMs: served.lastMs - t0,
      heapSubscribedMb: subscribed.heapUsedBytes / MiB,
      rssSubscribedMb: subscribed.rssBytes / MiB,
    };
  } finally {
    await worker.close();
  }
}

export async function scale(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const largest = Math.max(...plan.scale.pods);
  for (const pods of plan.scale.pods) {
    const runs: Run[] = [];
    for (let r = 0; r < plan.scale.runs; r++) {
      const snapshot = ctx.heapSnapshotDir !== undefined && pods === largest && r === 0;
      const run = await oneRun(plan, ctx, pods, snapshot, r);
      ctx.log(
        `scale pods=${pods} run ${r + 1}: sync ${run.syncMs.toFixed(0)} ms, heap ${run.heapMb.toFixed(1)} MiB`,
      );
      runs.push(run);
    }
    const med = (f: (r: Run) => number) => summarize(runs.map(f)).median;
    const sync = summarize(runs.map((r) => r.syncMs));
    results.push({
      name: "scale",
      params: {
        pods,
        services: Math.ceil(pods / plan.scale.podsPerService),
        slices: Math.ceil(pods / plan.scale.podsPerService),
      },
      samples: sync.count,
      median_ms: sync.median,
      p99_ms: sync.p99,
      sync_ms: sync.median,
      heap_mb: med((r) => r.heapMb),
      rss_mb: med((r) => r.rssMb),
      extra: {
        ready_ms: med((r) => r.readyMs),
        subscribe_all_ms: med((r) => r.subscribeAllMs),
        heap_all_subscribed_mb: med((r) => r.heapSubscribedMb),
        rss_all_subscribed_mb: med((r) => r.rssSubscribedMb),
      },
    });
  }
  return results;
}
