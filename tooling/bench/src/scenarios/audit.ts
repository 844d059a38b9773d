/**
 * Audit: what the server's self-audit costs (apps/destination-server README, "Self-audit"), on a
 * real kube-apiserver grown from size to size as `scale-curve` grows it. At each size a fresh
 * process of our binary runs with a short `-audit-interval`, one Get stream on every Service (so
 * every Service is audited) and GetProfile streams on the first ones; then, while the server
 * runs its audits, the bench samples it every 200 ms (CPU and RSS from `/proc`, its audit
 * counters from `/metrics`) and reads the API server's request counters after each run. The
 * first run is not measured (the JIT is cold, and it may start before every stream is open).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import type { BenchPlan } from "../args.js";
import {
  type AuditRun,
  type AuditSample,
  auditTimeline,
  netRunCpuMs,
  percentOfCore,
} from "../audit-timeline.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority, dataset, serviceProfile } from "../fixtures.js";
import { inParallel, KubeWriter } from "../kube-writer.js";
import { deltaOf, sumBy } from "../prom-text.js";
import { type ParamValue, roundResult, type ScenarioResult } from "../report.js";
import {
  procPeakRssMb,
  resetPeakRss,
  type ServerProcess,
  startServerProcess,
} from "../server-process.js";
import { median, nowMs, sumMetric, summarize } from "../stats.js";
import { populateServices, startBenchApiServer, WRITE_CONCURRENCY } from "./cluster-population.js";
import { metricsText, nodeName, type ScenarioContext, sleep } from "./common.js";

const SAMPLE_MS = 200;
/** Around a run's window: a sampling period of uncertainty, and its garbage collected after. */
const MARGIN_MS = 500;
/** The default interval (5 min) the cost is stated for. */
const PRODUCTION_INTERVAL_MS = 300_000;
const FIRST_MESSAGE_TIMEOUT_MS = 300_000;

/** The API server's counters of LIST requests and response bytes, by resource. */
interface ApiLists {
  readonly requests: Map<string, number>;
  readonly bytes: Map<string, number>;
}

interface SizeMeasure {
  readonly pods: number;
  readonly services: number;
  readonly streams: number;
  readonly runs: AuditRun[];
  readonly idleCpuMsPerS: number;
  /** VmHWM over each measured run's cycle (reset when the run before it ended). */
  readonly peakRssMb: number[];
  /** Per measured run: LIST requests and bytes by resource. */
  readonly lists: ApiLists[];
  readonly objects: number;
  readonly streamsChecked: number;
  /** The longest event-loop delay seen after the warm-up run (prom-client's gauge). */
  readonly eventLoopLagMaxMs: number;
}

export async function audit(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const p = plan.audit;
  const sizes = [...p.pods].sort((a, b) => a - b);
  const logDir = mkdtempSync(join(tmpdir(), "bench-audit-"));
  ctx.log("audit: starting kube-apiserver and etcd");
  const env = await startBenchApiServer();
  const writer = new KubeWriter(env);
  const out: ScenarioResult[] = [];
  let failed = false;
  try {
    const largest = Math.ceil((sizes.at(-1) ?? 0) / p.podsPerService);
    const data = dataset(largest, p.podsPerService);
    let written = 0;
    for (const pods of sizes) {
      const services = Math.ceil(pods / p.podsPerService);
      const t0 = performance.now();
      await populateServices(writer, data, written, services, p.podsPerService);
      // ServiceProfiles of the Services with GetProfile streams (the first ones), written once.
      const profiled = Array.from({ length: Math.min(p.profileStreams, services) }, (_, s) => s);
      await inParallel(
        profiled.filter((s) => s >= Math.min(written, p.profileStreams)),
        WRITE_CONCURRENCY,
        (s) => writer.apply(serviceProfile(s, 0)),
      );
      written = services;
      ctx.log(
        `audit: ${pods} pods in the API server (${writer.writes} requests so far, this size in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      try {
        const m = await measureSize(plan, ctx, env, pods, services, logDir);
        const row = result(p.intervalMs, m);
        ctx.log(`audit ${pods} pods: ${JSON.stringify(roundResult(row))}`);
        out.push(row);
      } catch (err) {
        // A size that fails is a finding: reported as a row, the server's log kept.
        failed = true;
        const message = err instanceof Error ? `${err.message} ${causeOf(err)}` : String(err);
        const log = join(logDir, `ours-${pods}.log`);
        const tail = existsSync(log)
          ? readFileSync(log, "utf8").trimEnd().split("\n").slice(-20).join("\n")
          : "";
        ctx.log(`audit ${pods} pods FAILED: ${message}\nserver log ${log}:\n${tail}`);
        out.push({
          name: "audit",
          params: { pods, services },
          samples: 0,
          median_ms: Number.NaN,
          p99_ms: Number.NaN,
          extra: { error: message.slice(0, 300) },
        });
      }
    }
    return out;
  } finally {
    writer.close();
    await env.stop();
    if (!failed) rmSync(logDir, { recursive: true, force: true });
  }
}

function causeOf(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `(${cause.message})` : cause === undefined ? "" : String(cause);
}

/**
 * The server's `/metrics`, tried again once: a poll can meet the admin server closing a
 * keep-alive connection that sat idle while the event loop was busy.
 */
async function serverMetrics(ctx: ScenarioContext, server: ServerProcess): Promise<string> {
  try {
    return await metricsText(server.adminPort);
  } catch (err) {
    ctx.log(`audit: /metrics failed (${causeOf(err as Error)}); trying again`);
    await sleep(100);
    return await metricsText(server.adminPort);
  }
}

async function apiLists(env: KubeEnv): Promise<ApiLists> {
  const res = await env.request("GET", "/metrics");
  return {
    requests: sumBy(res.text, "apiserver_request_total", "resource", { verb: "LIST" }),
    bytes: sumBy(res.text, "apiserver_response_sizes_sum", "resource", { verb: "LIST" }),
  };
}

async function measureSize(
  plan: BenchPlan,
  ctx: ScenarioContext,
  env: KubeEnv,
  pods: number,
  services: number,
  logDir: string,
): Promise<SizeMeasure> {
  const p = plan.audit;
  const server = await startServerProcess({
    kind: "ours",
    kubeconfig: env.kubeconfigPath,
    logFile: join(logDir, `ours-${pods}.log`),
    timeoutMs: 300_000,
    extraFlags: [
      `-audit-interval=${p.intervalMs}ms`,
      ...(ctx.cpuProfDir === undefined ? [] : ["-enable-pprof=true"]),
    ],
  });
  const pool = new ClientPool(server.grpcPort, plan.connections);
  try {
    await pool.ready();
    // One Get per Service, so every Service is audited; the profiles' on the first Services.
    const gets: StreamSpec[] = Array.from({ length: services }, (_, s) => ({
      path: authority(s),
      nodeName: nodeName(s),
    }));
    const profiles: StreamSpec[] = Array.from(
      { length: Math.min(p.profileStreams, services) },
      (_, s) => ({ path: authority(s), nodeName: nodeName(s), rpc: "getProfile" }),
    );
    const groups = [new StreamGroup(pool, gets), new StreamGroup(pool, profiles)];
    const t0 = nowMs();
    await Promise.all(groups.map((g) => g.waitFor(1, FIRST_MESSAGE_TIMEOUT_MS)));
    ctx.log(
      `audit ${pods} pods: ready in ${server.readyMs.toFixed(0)} ms, ${gets.length} Get and ${profiles.length} GetProfile streams served in ${(nowMs() - t0).toFixed(0)} ms`,
    );
    const measured = await sampleRuns(ctx, env, server, p.runs + 1, p.intervalMs);
    const ended = groups.reduce((n, g) => n + g.ended, 0);
    if (ended > 0) ctx.log(`audit ${pods} pods: WARNING ${ended} streams ended during the runs`);
    const text = await serverMetrics(ctx, server);
    if (ctx.cpuProfDir !== undefined) await profileOneRun(ctx, server, pods, p.intervalMs);
    for (const g of groups) g.cancel();
    return {
      pods,
      services,
      streams: gets.length + profiles.length,
      ...measured,
      objects: cachedObjects(text),
      streamsChecked: sumMetric(text, "destination_audit_streams_checked"),
    };
  } finally {
    pool.close();
    await server.stop();
  }
}

/** Objects in the server's local caches: what one audit run lists again. */
function cachedObjects(text: string): number {
  let n = 0;
  for (const line of text.split("\n")) {
    const m = /^(\w+)_cache_size\{[^}]*cluster="local"[^}]*\} (\S+)/.exec(line);
    if (m !== null) n += Number(m[2]);
  }
  return n;
}

/**
 * Samples the server until `runs` audit runs have ended; after each, reads the API server's
 * LIST counters and the peak RSS since the run before (then resets it).
 */
async function sampleRuns(
  ctx: ScenarioContext,
  env: KubeEnv,
  server: ServerProcess,
  runs: number,
  intervalMs: number,
): Promise<
  Pick<SizeMeasure, "runs" | "idleCpuMsPerS" | "peakRssMb" | "lists" | "eventLoopLagMaxMs">
> {
  const samples: AuditSample[] = [];
  const peaks: number[] = [];
  const readings: Promise<ApiLists>[] = [];
  const hwmReset = resetPeakRss(server.pid);
  if (!hwmReset) ctx.log("audit: cannot reset VmHWM; the peak RSS is the sampled one");
  // A run longer than a few intervals is a finding, not a reason to wait forever.
  const deadline = nowMs() + (runs + 1) * intervalMs * 1.1 + 20 * 60_000;
  let steps = 0;
  let lastStepAt = 0;
  let lagMaxS = 0;
  for (;;) {
    const text = await serverMetrics(ctx, server);
    const byResult = sumBy(text, "destination_audit_runs_total", "result");
    const sample: AuditSample = {
      atMs: nowMs(),
      cpuMs: server.cpuMs(),
      rssMb: server.rssMb(),
      runs: [...byResult.values()].reduce((a, b) => a + b, 0),
      clean: byResult.get("clean") ?? 0,
      durationSumS: sumMetric(text, "destination_audit_duration_seconds_sum"),
    };
    // prom-client's event-loop delay histogram is reset at each scrape: the max since the last.
    if (steps > 0) lagMaxS = Math.max(lagMaxS, sumMetric(text, "nodejs_eventloop_lag_max_seconds"));
    const prev = samples.at(-1);
    samples.push(sample);
    if (prev !== undefined && sample.runs > prev.runs) {
      steps += sample.runs - prev.runs;
      lastStepAt = sample.atMs;
      peaks.push(procPeakRssMb(server.pid));
      if (hwmReset) resetPeakRss(server.pid);
      // Not awaited: sampling goes on while the API server renders its metrics.
      readings.push(apiLists(env));
      ctx.log(
        `audit: run ${steps}/${runs} ended, ${((sample.durationSumS - prev.durationSumS) * 1000).toFixed(0)} ms (${sample.clean === prev.clean ? "NOT CLEAN" : "clean"})`,
      );
    }
    if (steps >= runs && sample.atMs > lastStepAt + MARGIN_MS + 2 * SAMPLE_MS) break;
    if (sample.atMs > deadline) throw new Error(`audit: ${steps} of ${runs} runs in time`);
    await sleep(SAMPLE_MS);
  }
  const timeline = auditTimeline(samples, {
    marginMs: MARGIN_MS,
    idleAfterMs: intervalMs * 0.2,
    idleForMs: intervalMs * 0.4,
  });
  const lists = await Promise.all(readings);
  const perRun: ApiLists[] = [];
  for (let k = 1; k < lists.length; k++) {
    const [a, b] = [lists[k - 1] as ApiLists, lists[k] as ApiLists];
    perRun.push({ requests: deltaOf(a.requests, b.requests), bytes: deltaOf(a.bytes, b.bytes) });
  }
  // The first run is the warm-up: its window, peak and lists are left out.
  return {
    runs: timeline.runs.slice(1),
    idleCpuMsPerS: timeline.idleCpuMsPerS,
    peakRssMb: peaks.slice(1),
    lists: perRun,
    eventLoopLagMaxMs: lagMaxS * 1000,
  };
}

/**
 * With `--cpu-prof DIR`: a pprof CPU profile (the server's `/debug/pprof/profile`) long enough
 * to hold one more run, written to `DIR/audit-<pods>.pb.gz` for `go tool pprof -top`.
 */
async function profileOneRun(
  ctx: ScenarioContext,
  server: ServerProcess,
  pods: number,
  intervalMs: number,
): Promise<void> {
  const dir = ctx.cpuProfDir as string;
  mkdirSync(dir, { recursive: true });
  const seconds = Math.ceil((intervalMs * 1.1) / 1000) + 5;
  const res = await fetch(
    `http://127.0.0.1:${server.adminPort}/debug/pprof/profile?seconds=${seconds}`,
  );
  const path = join(dir, `audit-${pods}.pb.gz`);
  writeFileSync(path, Buffer.from(await res.arrayBuffer()));
  ctx.log(`audit: cpu profile over ${seconds} s (one run in it): ${path} (${res.status})`);
}

function result(intervalMs: number, m: SizeMeasure): ScenarioResult {
  const durations = m.runs.map((r) => r.durationMs);
  const cpu = m.runs.map((r) => netRunCpuMs(r, m.idleCpuMsPerS));
  const d = summarize(durations);
  const resources = new Set(m.lists.flatMap((l) => [...l.requests.keys()]));
  const lists: Record<string, ParamValue> = {};
  for (const resource of [...resources].sort()) {
    lists[`lists_${resource}`] = median(m.lists.map((l) => l.requests.get(resource) ?? 0));
  }
  const total = (l: ApiLists, key: "requests" | "bytes") =>
    [...l[key].values()].reduce((a, b) => a + b, 0);
  const cpuMedian = median(cpu);
  return {
    name: "audit",
    params: { pods: m.pods, services: m.services, streams: m.streams },
    samples: m.runs.length,
    median_ms: d.median,
    p99_ms: d.p99,
    cpu_ms: cpuMedian,
    rss_mb: median(m.runs.map((r) => r.rssBeforeMb)),
    extra: {
      interval_ms: intervalMs,
      clean_runs: m.runs.filter((r) => r.clean).length,
      duration_max_ms: Math.max(...durations),
      cpu_max_ms: Math.max(...cpu),
      cpu_window_ms: median(m.runs.map((r) => r.windowCpuMs)),
      idle_cpu_ms_per_s: m.idleCpuMsPerS,
      rss_peak_mb: Math.max(...m.peakRssMb),
      rss_sampled_peak_mb: Math.max(...m.runs.map((r) => r.rssSampledPeakMb)),
      objects: m.objects,
      streams_checked: m.streamsChecked,
      eventloop_lag_max_ms: m.eventLoopLagMaxMs,
      list_requests: median(m.lists.map((l) => total(l, "requests"))),
      ...lists,
      response_mb: median(m.lists.map((l) => total(l, "bytes"))) / 2 ** 20,
      pct_core_per_5m: percentOfCore(cpuMedian, PRODUCTION_INTERVAL_MS),
    },
  };
}
