/**
 * Scale curve: how start, memory and first Gets grow with the cluster, ours and (with
 * `DESTINATION_UPSTREAM_BIN`) upstream's Go server on one real kube-apiserver. The cluster grows
 * from size to size (10 Running pods per Service, one slice each, as `cluster` writes them); at
 * each size, passes alternate between the servers, each a fresh process:
 * - start → first 200 from `/ready`, and the CPU used by then;
 * - RSS once idle;
 * - 1k cold Gets (one per Service, several per Service below 1k Services), until each has its
 *   first message;
 * - RSS with every Service subscribed (one Get stream each).
 * Then each server's slope per 1k pods (least squares over the sizes) for each measure.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority, dataset } from "../fixtures.js";
import { KubeWriter } from "../kube-writer.js";
import type { ParamValue, ScenarioResult } from "../report.js";
import { type ServerKind, startServerProcess } from "../server-process.js";
import { median, nowMs, slope, summarize } from "../stats.js";
import { populateServices, startBenchApiServer } from "./cluster-population.js";
import { nodeName, type ScenarioContext, sleep } from "./common.js";

interface Pass {
  readyMs: number;
  readyCpuMs: number;
  idleRssMb: number;
  coldMs: number;
  coldCpuMs: number;
  subscribedRssMb: number;
}

const SETTLE_MS = 3000;
const COLD_GETS = 1000;

export async function scaleCurve(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const p = plan.scaleCurve;
  const upstreamBin = process.env.DESTINATION_UPSTREAM_BIN || undefined;
  const kinds: ServerKind[] = upstreamBin === undefined ? ["ours"] : ["ours", "upstream"];
  if (upstreamBin === undefined)
    ctx.log("scale-curve: DESTINATION_UPSTREAM_BIN is not set; ours only");
  const sizes = [...p.pods].sort((a, b) => a - b);
  const logDir = mkdtempSync(join(tmpdir(), "bench-scale-curve-"));
  ctx.log("scale-curve: starting kube-apiserver and etcd");
  const env = await startBenchApiServer();
  const writer = new KubeWriter(env);
  try {
    const largest = sizes.at(-1) ?? 0;
    const data = dataset(Math.ceil(largest / p.podsPerService), p.podsPerService);
    const measured = new Map<number, Map<ServerKind, Pass[]>>();
    let written = 0;
    for (const pods of sizes) {
      const services = Math.ceil(pods / p.podsPerService);
      const t0 = performance.now();
      await populateServices(writer, data, written, services, p.podsPerService);
      written = services;
      ctx.log(
        `scale-curve: ${pods} pods in the API server (${writer.writes} requests so far, this size in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      const bySize = new Map<ServerKind, Pass[]>(kinds.map((k) => [k, []]));
      measured.set(pods, bySize);
      for (let pass = 0; pass < p.passes; pass++) {
        const order = pass % 2 === 0 ? kinds : [...kinds].reverse();
        for (const kind of order) {
          const m = await onePass(plan, kind, services, {
            kubeconfig: env.kubeconfigPath,
            logFile: join(logDir, `${kind}-${pods}-${pass}.log`),
            ...(upstreamBin === undefined ? {} : { upstreamBin }),
          });
          bySize.get(kind)?.push(m);
          ctx.log(
            `scale-curve ${pods} pods pass ${pass + 1}/${p.passes} ${kind}: ready ${m.readyMs.toFixed(0)} ms, cpu ${m.readyCpuMs.toFixed(0)} ms, idle rss ${m.idleRssMb.toFixed(0)} MiB, ${COLD_GETS} cold Gets ${m.coldMs.toFixed(0)} ms (cpu ${m.coldCpuMs.toFixed(0)} ms), all ${services} subscribed rss ${m.subscribedRssMb.toFixed(0)} MiB`,
          );
        }
      }
    }
    return results(p.podsPerService, measured, kinds);
  } finally {
    writer.close();
    await env.stop();
    rmSync(logDir, { recursive: true, force: true });
  }
}

async function onePass(
  plan: BenchPlan,
  kind: ServerKind,
  services: number,
  options: { kubeconfig: string; logFile: string; upstreamBin?: string },
): Promise<Pass> {
  const server = await startServerProcess({ kind, ...options, timeoutMs: 300_000 });
  try {
    await sleep(SETTLE_MS);
    const idleRssMb = server.rssMb();
    const pool = new ClientPool(server.grpcPort, plan.connections);
    try {
      await pool.ready();
      const spec = (s: number): StreamSpec => ({ path: authority(s), nodeName: nodeName(s) });
      // 1k Gets over the first Services, several per Service where there are fewer.
      const cold = Math.min(COLD_GETS, services);
      const cpu0 = server.cpuMs();
      const t0 = nowMs();
      const coldGroup = new StreamGroup(
        pool,
        Array.from({ length: COLD_GETS }, (_, i) => spec(i % cold)),
      );
      const { lastMs } = await coldGroup.waitFor(1, 300_000);
      const coldMs = lastMs - t0;
      const coldCpuMs = server.cpuMs() - cpu0;
      const rest = new StreamGroup(
        pool,
        Array.from({ length: services - cold }, (_, i) => spec(cold + i)),
      );
      await rest.waitFor(1, 300_000);
      await sleep(SETTLE_MS);
      const subscribedRssMb = server.rssMb();
      coldGroup.cancel();
      rest.cancel();
      return {
        readyMs: server.readyMs,
        readyCpuMs: server.readyCpuMs,
        idleRssMb,
        coldMs,
        coldCpuMs,
        subscribedRssMb,
      };
    } finally {
      pool.close();
    }
  } finally {
    await server.stop();
  }
}

type Measure = "readyMs" | "readyCpuMs" | "idleRssMb" | "coldMs" | "subscribedRssMb";
const MEASURES: readonly Measure[] = [
  "readyMs",
  "readyCpuMs",
  "idleRssMb",
  "coldMs",
  "subscribedRssMb",
];

function results(
  podsPerService: number,
  measured: Map<number, Map<ServerKind, Pass[]>>,
  kinds: readonly ServerKind[],
): ScenarioResult[] {
  const out: ScenarioResult[] = [];
  const med = (pods: number, kind: ServerKind, m: Measure) =>
    median((measured.get(pods)?.get(kind) ?? []).map((x) => x[m]));
  const hasUpstream = kinds.includes("upstream");
  for (const [pods, byKind] of measured) {
    for (const [kind, list] of byKind) {
      const ready = summarize(list.map((x) => x.readyMs));
      const ratio = (m: Measure) =>
        kind === "ours" && hasUpstream
          ? med(pods, "ours", m) / med(pods, "upstream", m)
          : undefined;
      const ratios: Record<string, ParamValue> = {};
      if (kind === "ours" && hasUpstream) {
        for (const m of MEASURES) ratios[`${m}_ratio`] = ratio(m) ?? 0;
      }
      out.push({
        name: "scale-curve",
        params: { server: kind, pods, services: Math.ceil(pods / podsPerService) },
        samples: ready.count,
        median_ms: ready.median,
        p99_ms: ready.p99,
        cpu_ms: med(pods, kind, "readyCpuMs"),
        rss_mb: med(pods, kind, "idleRssMb"),
        ...(ratio("readyMs") === undefined ? {} : { ratio_to_upstream: ratio("readyMs") }),
        extra: {
          cold_gets: COLD_GETS,
          cold_ms: med(pods, kind, "coldMs"),
          cold_cpu_ms: median(list.map((x) => x.coldCpuMs)),
          subscribed_rss_mb: med(pods, kind, "subscribedRssMb"),
          ...ratios,
        },
      });
    }
  }
  const sizes = [...measured.keys()];
  if (sizes.length < 2) return out;
  const slopes = new Map<ServerKind, Record<Measure, number>>();
  for (const kind of kinds) {
    const perK = Object.fromEntries(
      MEASURES.map((m) => [m, slope(sizes.map((pods) => [pods / 1000, med(pods, kind, m)]))]),
    ) as Record<Measure, number>;
    slopes.set(kind, perK);
  }
  for (const kind of kinds) {
    const s = slopes.get(kind) as Record<Measure, number>;
    const theirs = slopes.get("upstream");
    const extra: Record<string, ParamValue> = {
      ready_ms_per_1k_pods: s.readyMs,
      ready_cpu_ms_per_1k_pods: s.readyCpuMs,
      idle_rss_mb_per_1k_pods: s.idleRssMb,
      subscribed_rss_mb_per_1k_pods: s.subscribedRssMb,
    };
    if (kind === "ours" && theirs !== undefined) {
      extra.ready_cpu_slope_ratio = s.readyCpuMs / theirs.readyCpuMs;
      extra.idle_rss_slope_ratio = s.idleRssMb / theirs.idleRssMb;
      extra.subscribed_rss_slope_ratio = s.subscribedRssMb / theirs.subscribedRssMb;
    }
    out.push({
      name: "scale-curve-slope",
      params: { server: kind, sizes: sizes.join("/") },
      samples: sizes.length,
      median_ms: s.readyMs,
      p99_ms: s.readyMs,
      ...(kind === "ours" && theirs !== undefined
        ? { ratio_to_upstream: s.readyMs / theirs.readyMs }
        : {}),
      extra,
    });
  }
  return out;
}
