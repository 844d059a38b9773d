/**
 * Cluster: the real server binary as a child process against a real kube-apiserver (watch cache
 * on, as in a cluster) holding the dataset (10k Running pods, 1k Services, 1k EndpointSlices by
 * default), and, when `DESTINATION_UPSTREAM_BIN` names a built linkerd2 controller, upstream's
 * Go destination service on the same API server, alternating pass by pass. Each pass of a server
 * is a fresh process:
 * - `cluster-sync`: spawn to the first 200 from `/ready` (wall, and the child's CPU then), and
 *   RSS once idle after that.
 * - `cold-subscribe`: one Get to each Service at once, none subscribed before, until every
 *   stream has its first message.
 * - `churn-rss`: with those streams open, rolling pod replacement through the API server (pod
 *   created and Running, slice updated, old pod deleted), then the streams are closed and RSS is
 *   read once the process is idle again.
 * - `cluster-streams-rss`: 10k Get streams over every Service, RSS once all are served.
 * - `cluster-fanout`: 10k Get streams of one Service, endpoints added through the API server one
 *   at a time; each sample is the slice write to the last stream having the Add.
 */
import { mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup } from "../clients.js";
import { authority, dataset, type SliceEndpointRef } from "../fixtures.js";
import { machineBusyPercentSince, machineCpu } from "../machine-cpu.js";
import type { PhaseWindow } from "../profile-summary.js";
import type { ParamValue, ScenarioResult } from "../report.js";
import {
  heapSpacesMb,
  mainThreadCpuMs,
  mainThreadRunQueueWaitMs,
  type ServerKind,
  startServerProcess,
} from "../server-process.js";
import { median, nowMs, summarize } from "../stats.js";
import { ClusterChurn } from "./cluster-churn.js";
import { openBenchCluster, populate } from "./cluster-population.js";
import { FanoutChanges, wideStreams } from "./cluster-streams.js";
import { nodeName, type ScenarioContext, sleep } from "./common.js";
import { monotonicUs, reportProfile } from "./profile-report.js";

/** What one pass of one server measured. */
interface Pass {
  readyMs: number;
  readyCpuMs: number;
  readyMainThreadCpuMs: number;
  idleRssMb: number;
  coldMs: number;
  coldCpuMs: number;
  /** The cold storm: when the first stream was served, which is mostly the client's own setup. */
  coldFirstMs: number;
  /** The cold storm: the bench client's CPU (it runs on the same cores as the server). */
  coldClientCpuMs: number;
  /** The cold storm: the server's first thread, running and waiting for a core. */
  coldMainThreadCpuMs: number;
  coldMainThreadWaitMs: number | undefined;
  /** The cold storm: the share of the machine's CPU that was busy. */
  coldMachineBusyPercent: number;
  rssBeforeChurnMb: number;
  churnRssMb: number;
  churnCpuMs: number;
  churnMs: number;
  wideRssMb: number;
  wideAllFirstMs: number;
  wideCpuMs: number;
  /** Slice write → last stream has the Add, one per round. */
  fanoutMs: number[];
  load: number;
}

/** How long a server is left alone before its RSS is read. */
const SETTLE_MS = 3000;

export async function cluster(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const p = plan.cluster;
  const bench = await openBenchCluster(ctx, "cluster");
  const { env, writer, kinds, upstreamBin, logDir } = bench;
  try {
    const data = dataset(p.services, p.podsPerService);
    const t0 = performance.now();
    await populate(writer, data);
    ctx.log(
      `cluster: wrote ${data.objectCount} objects (${writer.writes} requests) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const churn = new ClusterChurn(writer, data.endpoints, p.services * p.podsPerService);
    const fanout = new FanoutChanges(writer, data.endpoints[0] as SliceEndpointRef[], 0);
    const passes = new Map<ServerKind, Pass[]>(kinds.map((k) => [k, []]));
    for (let pass = 0; pass < p.passes; pass++) {
      // Alternate which server goes first, so drift in the machine's load weighs on both.
      const order = pass % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        const profDir =
          ctx.cpuProfDir !== undefined && kind === "ours"
            ? join(ctx.cpuProfDir, `cluster-ours-${pass}`)
            : undefined;
        if (profDir !== undefined) mkdirSync(profDir, { recursive: true });
        const windows: PhaseWindow[] = [];
        const measured = await onePass(plan, ctx, kind, {
          ...(profDir === undefined ? {} : { cpuProfDir: profDir, windows }),
          kubeconfig: env.kubeconfigPath,
          logFile: join(logDir, `${kind}-${pass}.log`),
          ...(upstreamBin === undefined ? {} : { upstreamBin }),
          churn,
          fanout,
        });
        passes.get(kind)?.push(measured);
        if (profDir !== undefined) reportProfile(ctx, "cluster", profDir, windows);
        const fanoutMedian = median(measured.fanoutMs);
        ctx.log(
          `cluster pass ${pass + 1}/${p.passes} ${kind}: ${p.wideStreams} streams rss ${measured.wideRssMb.toFixed(0)} MiB (all served in ${measured.wideAllFirstMs.toFixed(0)} ms), fan-out to ${p.fanoutStreams} median ${fanoutMedian.toFixed(0)} ms, max ${Math.max(...measured.fanoutMs).toFixed(0)} ms`,
        );
        ctx.log(
          `cluster pass ${pass + 1}/${p.passes} ${kind}: ready ${measured.readyMs.toFixed(0)} ms, cpu ${measured.readyCpuMs.toFixed(0)} ms (first thread ${measured.readyMainThreadCpuMs.toFixed(0)}), idle rss ${measured.idleRssMb.toFixed(0)} MiB, cold ${measured.coldMs.toFixed(0)} ms (first ${measured.coldFirstMs.toFixed(0)}, first thread ${measured.coldMainThreadCpuMs.toFixed(0)} + waiting ${measured.coldMainThreadWaitMs?.toFixed(0) ?? "?"}, client ${measured.coldClientCpuMs.toFixed(0)}, machine ${measured.coldMachineBusyPercent.toFixed(0)}% busy), churn cpu ${measured.churnCpuMs.toFixed(0)} ms, churn rss ${measured.churnRssMb.toFixed(0)} MiB (load ${measured.load.toFixed(2)})`,
        );
      }
    }
    return results(plan, passes);
  } finally {
    await bench.close();
  }
}

async function onePass(
  plan: BenchPlan,
  ctx: ScenarioContext,
  kind: ServerKind,
  options: {
    kubeconfig: string;
    logFile: string;
    upstreamBin?: string;
    churn: ClusterChurn;
    fanout: FanoutChanges;
    /** Ours only: profile the process into this folder, its windows pushed to `windows`. */
    cpuProfDir?: string;
    windows?: PhaseWindow[];
  },
): Promise<Pass> {
  const p = plan.cluster;
  const load = loadavg()[0] ?? 0;
  const server = await startServerProcess({
    kind,
    kubeconfig: options.kubeconfig,
    logFile: options.logFile,
    ...(options.upstreamBin === undefined ? {} : { upstreamBin: options.upstreamBin }),
    ...(options.cpuProfDir === undefined ? {} : { cpuProfDir: options.cpuProfDir }),
  });
  const windows = options.windows ?? [];
  windows.push({ name: "start → ready", startUs: server.spawnedAtUs, endUs: server.readyAtUs });
  try {
    await sleep(SETTLE_MS);
    const idleRssMb = server.rssMb();
    if (kind === "ours") {
      const spaces = Object.entries(await heapSpacesMb(server.adminPort))
        .filter(([, mb]) => mb >= 0.5)
        .map(([space, mb]) => `${space} ${mb.toFixed(1)}`);
      process.stderr.write(
        `cluster ${kind}: idle rss ${idleRssMb.toFixed(0)} MiB, heap MiB: ${spaces.join(", ")}\n`,
      );
    }
    const pool = new ClientPool(server.grpcPort, plan.connections);
    try {
      await pool.ready();
      const specs = Array.from({ length: p.services }, (_, s) => ({
        path: authority(s),
        nodeName: nodeName(s),
      }));
      const coldCpu0 = server.cpuMs();
      const main0 = mainThreadCpuMs(server.pid);
      const wait0 = mainThreadRunQueueWaitMs(server.pid);
      const machine0 = machineCpu();
      const client0 = process.cpuUsage();
      const t0 = nowMs();
      const coldStartUs = monotonicUs();
      const group = new StreamGroup(pool, specs);
      const { firstMs, lastMs } = await group.waitFor(1, 120_000);
      const coldMs = lastMs - t0;
      windows.push({ name: "cold storm", startUs: coldStartUs, endUs: monotonicUs() });
      const coldCpuMs = server.cpuMs() - coldCpu0;
      const client = process.cpuUsage(client0);
      const wait1 = mainThreadRunQueueWaitMs(server.pid);
      const storm = {
        coldFirstMs: firstMs - t0,
        coldClientCpuMs: (client.user + client.system) / 1000,
        coldMainThreadCpuMs: mainThreadCpuMs(server.pid) - main0,
        coldMainThreadWaitMs:
          wait0 === undefined || wait1 === undefined ? undefined : wait1 - wait0,
        coldMachineBusyPercent: machineBusyPercentSince(machine0),
      };
      const rssBeforeChurnMb = server.rssMb();
      ctx.log(`cluster ${kind}: churning ${p.churnSeconds} s`);
      const cpu0 = server.cpuMs();
      const c0 = performance.now();
      const churnStartUs = monotonicUs();
      await options.churn.run(p.churnSeconds, p.churnPerSecond);
      windows.push({ name: "churn", startUs: churnStartUs, endUs: monotonicUs() });
      const churnMs = performance.now() - c0;
      const churnCpuMs = server.cpuMs() - cpu0;
      group.cancel();
      pool.close();
      await sleep(SETTLE_MS);
      const churnRssMb = server.rssMb();
      ctx.log(`cluster ${kind}: ${p.wideStreams} streams over every Service`);
      const wide = await wideStreams(server, plan.connections, p.services, p.wideStreams);
      ctx.log(`cluster ${kind}: fan-out to ${p.fanoutStreams} streams, ${p.fanoutRounds} changes`);
      const fanoutMs = await options.fanout.run(
        server,
        plan.connections,
        p.fanoutStreams,
        p.fanoutRounds,
      );
      return {
        readyMs: server.readyMs,
        readyCpuMs: server.readyCpuMs,
        readyMainThreadCpuMs: server.readyMainThreadCpuMs,
        idleRssMb,
        coldMs,
        coldCpuMs,
        ...storm,
        rssBeforeChurnMb,
        churnRssMb,
        churnCpuMs,
        churnMs,
        wideRssMb: wide.rssMb,
        wideAllFirstMs: wide.allFirstMs,
        wideCpuMs: wide.cpuMs,
        fanoutMs,
        load,
      };
    } finally {
      pool.close();
    }
  } finally {
    await server.stop();
  }
}

function results(plan: BenchPlan, passes: Map<ServerKind, Pass[]>): ScenarioResult[] {
  const p = plan.cluster;
  const upstream = passes.get("upstream");
  const out: ScenarioResult[] = [];
  const ratio = (ours: number, theirs: readonly number[] | undefined) =>
    theirs === undefined ? undefined : ours / median(theirs);
  for (const [kind, list] of passes) {
    const params: Record<string, ParamValue> = {
      server: kind,
      pods: p.services * p.podsPerService,
      services: p.services,
    };
    const pick = (f: (x: Pass) => number) => list.map(f);
    const sync = summarize(pick((x) => x.readyMs));
    const cpu = median(pick((x) => x.readyCpuMs));
    const mainThreadCpu = median(pick((x) => x.readyMainThreadCpuMs));
    const idleRss = median(pick((x) => x.idleRssMb));
    const cold = summarize(pick((x) => x.coldMs));
    const churnRss = median(pick((x) => x.churnRssMb));
    const ours = kind === "ours" && upstream !== undefined;
    const loads = pick((x) => x.load)
      .map((l) => l.toFixed(2))
      .join("/");
    out.push({
      name: "cluster-sync",
      params,
      samples: sync.count,
      median_ms: sync.median,
      p99_ms: sync.p99,
      cpu_ms: cpu,
      rss_mb: idleRss,
      ...(ours
        ? {
            ratio_to_upstream: ratio(
              sync.median,
              upstream.map((x) => x.readyMs),
            ),
            extra: {
              cpu_ratio_to_upstream:
                ratio(
                  cpu,
                  upstream.map((x) => x.readyCpuMs),
                ) ?? 0,
              rss_ratio_to_upstream:
                ratio(
                  idleRss,
                  upstream.map((x) => x.idleRssMb),
                ) ?? 0,
              first_thread_cpu_ms: mainThreadCpu,
              load_at_start: loads,
            },
          }
        : { extra: { first_thread_cpu_ms: mainThreadCpu, load_at_start: loads } }),
    });
    out.push({
      name: "cold-subscribe",
      params,
      samples: cold.count,
      median_ms: cold.median,
      p99_ms: cold.p99,
      // The server's CPU over the storm of first Gets, and its RSS with the streams open.
      cpu_ms: median(pick((x) => x.coldCpuMs)),
      rss_mb: median(pick((x) => x.rssBeforeChurnMb)),
      ...(ours
        ? {
            ratio_to_upstream: ratio(
              cold.median,
              upstream.map((x) => x.coldMs),
            ),
          }
        : {}),
      extra: stormExtra(list),
    });
    out.push({
      name: "churn-rss",
      params: {
        ...params,
        churn_s: p.churnSeconds,
        replacements_per_s: p.churnPerSecond,
      },
      // The time the churn's writes took: more than churn_s means the API server fell behind.
      samples: list.length,
      median_ms: median(pick((x) => x.churnMs)),
      p99_ms: summarize(pick((x) => x.churnMs)).p99,
      rss_mb: churnRss,
      cpu_ms: median(pick((x) => x.churnCpuMs)),
      ...(ours
        ? {
            ratio_to_upstream: ratio(
              churnRss,
              upstream.map((x) => x.churnRssMb),
            ),
          }
        : {}),
      extra: {
        rss_before_churn_mb: median(pick((x) => x.rssBeforeChurnMb)),
        // The CPU the churn cost, against upstream's on the same writes.
        ...(ours
          ? {
              cpu_ratio_to_upstream:
                ratio(
                  median(pick((x) => x.churnCpuMs)),
                  upstream.map((x) => x.churnCpuMs),
                ) ?? 0,
            }
          : {}),
      },
    });
    const wideRss = median(pick((x) => x.wideRssMb));
    out.push({
      name: "cluster-streams-rss",
      params: { ...params, streams: p.wideStreams },
      // Opening the streams to the last one's first message.
      samples: list.length,
      median_ms: median(pick((x) => x.wideAllFirstMs)),
      p99_ms: summarize(pick((x) => x.wideAllFirstMs)).p99,
      rss_mb: wideRss,
      cpu_ms: median(pick((x) => x.wideCpuMs)),
      ...(ours
        ? {
            ratio_to_upstream: ratio(
              wideRss,
              upstream.map((x) => x.wideRssMb),
            ),
          }
        : {}),
    });
    // Every round of every pass is a sample.
    const fanout = summarize(list.flatMap((x) => x.fanoutMs));
    const upstreamFanout =
      upstream === undefined ? undefined : summarize(upstream.flatMap((x) => x.fanoutMs));
    out.push({
      name: "cluster-fanout",
      params: { ...params, streams: p.fanoutStreams, rounds: p.fanoutRounds },
      samples: fanout.count,
      median_ms: fanout.median,
      p99_ms: fanout.p99,
      ...(ours && upstreamFanout !== undefined
        ? {
            // The target is on the p99; the median's ratio is kept beside it.
            ratio_to_upstream: fanout.p99 / upstreamFanout.p99,
            extra: { median_ratio_to_upstream: fanout.median / upstreamFanout.median },
          }
        : {}),
    });
  }
  return out;
}

/**
 * Where a cold storm's time went: the first stream served (before it, the client is still
 * opening its streams), the server's first thread running and waiting for a core, the bench
 * client's own CPU and how busy the machine was. On a machine of few cores the storm is a
 * contest for CPU among the client, the server's first thread and its helper threads.
 */
function stormExtra(list: readonly Pass[]): Record<string, ParamValue> {
  const waits = list.map((x) => x.coldMainThreadWaitMs).filter((w) => w !== undefined);
  return {
    first_ms: median(list.map((x) => x.coldFirstMs)),
    first_thread_cpu_ms: median(list.map((x) => x.coldMainThreadCpuMs)),
    ...(waits.length === list.length ? { first_thread_wait_ms: median(waits) } : {}),
    client_cpu_ms: median(list.map((x) => x.coldClientCpuMs)),
    machine_busy_pct: median(list.map((x) => x.coldMachineBusyPercent)),
  };
}
