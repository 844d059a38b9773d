/**
 * Churn mix: the CPU each kind of cluster change costs, ours and (with `DESTINATION_UPSTREAM_BIN`)
 * upstream's Go server on one real kube-apiserver, the same kinds and counts of writes to both.
 * The dataset of `cluster` (10k Running pods, 1k Services, 10 per Service, by default), a
 * ServiceProfile per watched Service, and per pass of a server: a fresh process, `get` Get
 * streams over the watched Services and one GetProfile stream each, then rounds of one phase per
 * kind of change (see churn-mix-phases.ts). A phase ends when its writes are done and no stream
 * has received anything for a while; its CPU is the process's from the first write to then. The
 * first round meets a process that just started, the next ones a warm process; each round is
 * reported apart (`round` in the results).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority, dataset } from "../fixtures.js";
import { PacedWriter } from "../paced-writes.js";
import type { PhaseWindow } from "../profile-summary.js";
import type { ParamValue, ScenarioResult } from "../report.js";
import { mainThreadCpuMs, type ServerKind, startServerProcess } from "../server-process.js";
import { median, summarize } from "../stats.js";
import { ChurnModel, churnPhases } from "./churn-mix-phases.js";
import { openBenchCluster, populate } from "./cluster-population.js";
import { nodeName, type ScenarioContext, sleep } from "./common.js";
import { monotonicUs, reportProfile } from "./profile-report.js";

/** Per server, per round (from 1), per phase: one measure per pass. */
type Measured = Map<ServerKind, Map<number, Map<string, PhaseMeasure[]>>>;

interface PhaseMeasure {
  readonly writes: number;
  readonly cpuMs: number;
  readonly mainThreadCpuMs: number;
  readonly messages: number;
  readonly ms: number;
}

/** A phase is over once no stream has heard anything for this long after its last write. */
const QUIET_MS = 1000;
/** …and not before this long after the last write (an informer may still be catching up). */
const MIN_SETTLE_MS = 1500;
const MAX_SETTLE_MS = 30_000;
const SETTLE_MS = 3000;
/** Lanes written at once. */
const LANES = 8;

export async function churnMix(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const p = plan.churnMix;
  const bench = await openBenchCluster(ctx, "churn-mix");
  const { env, writer, kinds, upstreamBin, logDir } = bench;
  try {
    const data = dataset(p.services, p.podsPerService);
    const model = new ChurnModel(
      { services: p.services, watched: p.watchedServices, perPhase: p.servicesPerPhase },
      data.endpoints,
      p.services * p.podsPerService,
    );
    const t0 = performance.now();
    await populate(writer, data, model.initialProfiles());
    ctx.log(
      `churn-mix: wrote ${writer.writes} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const phases = churnPhases(model);
    const rounds = Array.from({ length: p.rounds }, (_, r) => r + 1);
    const measured: Measured = new Map(
      kinds.map((k) => [
        k,
        new Map(rounds.map((r) => [r, new Map(phases.map((ph) => [ph.name, []]))])),
      ]),
    );
    const idle = new Map<ServerKind, number[]>(kinds.map((k) => [k, []]));
    const paced = new PacedWriter(writer, p.writesPerSecond);
    for (let pass = 0; pass < p.passes; pass++) {
      const order = pass % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        const profDir =
          ctx.cpuProfDir !== undefined && kind === "ours"
            ? join(ctx.cpuProfDir, `churn-mix-ours-${pass}`)
            : undefined;
        if (profDir !== undefined) mkdirSync(profDir, { recursive: true });
        const server = await startServerProcess({
          kind,
          kubeconfig: env.kubeconfigPath,
          logFile: join(logDir, `${kind}-${pass}.log`),
          ...(upstreamBin === undefined ? {} : { upstreamBin }),
          ...(profDir === undefined ? {} : { cpuProfDir: profDir }),
        });
        const windows: PhaseWindow[] = [];
        const pool = new ClientPool(server.grpcPort, plan.connections);
        try {
          await pool.ready();
          const watched = Array.from({ length: p.watchedServices }, (_, s) => s);
          const gets: StreamSpec[] = Array.from({ length: p.getStreams }, (_, i) => ({
            path: authority(i % p.watchedServices),
            nodeName: nodeName(i),
          }));
          const profiles: StreamSpec[] = watched.map((s) => ({
            path: authority(s),
            nodeName: nodeName(s),
            rpc: "getProfile",
          }));
          let lastMessageAt = performance.now();
          const heard = () => {
            lastMessageAt = performance.now();
          };
          const groups = [
            new StreamGroup(pool, gets, heard),
            new StreamGroup(pool, profiles, heard),
          ];
          await Promise.all(groups.map((g) => g.waitFor(1, 120_000)));
          await sleep(SETTLE_MS);
          const idle0 = server.cpuMs();
          await sleep(SETTLE_MS);
          idle.get(kind)?.push(((server.cpuMs() - idle0) * 1000) / SETTLE_MS);
          const received = () => groups.reduce((n, g) => n + g.received, 0);
          // One phase: its writes, then quiet on every stream, measured from the first write.
          const measurePhase = async (phase: (typeof phases)[number]): Promise<PhaseMeasure> => {
            const writes0 = paced.writes;
            const cpu0 = server.cpuMs();
            const main0 = mainThreadCpuMs(server.pid);
            const messages0 = received();
            const start = performance.now();
            await paced.run(phase.lanes(), LANES);
            const wrote = performance.now();
            for (;;) {
              const now = performance.now();
              if (now - wrote >= MIN_SETTLE_MS && now - lastMessageAt >= QUIET_MS) break;
              if (now - wrote >= MAX_SETTLE_MS) break;
              await sleep(50);
            }
            return {
              writes: paced.writes - writes0,
              cpuMs: server.cpuMs() - cpu0,
              mainThreadCpuMs: mainThreadCpuMs(server.pid) - main0,
              messages: received() - messages0,
              ms: performance.now() - start,
            };
          };
          for (const round of rounds) {
            for (const phase of phases) {
              const startUs = monotonicUs();
              const m = await measurePhase(phase);
              windows.push({ name: `${phase.name}-${round}`, startUs, endUs: monotonicUs() });
              measured.get(kind)?.get(round)?.get(phase.name)?.push(m);
              ctx.log(
                `churn-mix pass ${pass + 1}/${p.passes} ${kind} round ${round} ${phase.name}: ${m.writes} writes, cpu ${m.cpuMs.toFixed(0)} ms (first thread ${m.mainThreadCpuMs.toFixed(0)}), ${((m.cpuMs * 1000) / Math.max(1, m.writes)).toFixed(0)} µs/write, ${m.messages} messages, ${(m.ms / 1000).toFixed(1)} s`,
              );
            }
          }
          const ended = groups.reduce((n, g) => n + g.ended, 0);
          if (ended > 0) throw new Error(`churn-mix: ${ended} streams of ${kind} ended early`);
          for (const g of groups) g.cancel();
        } finally {
          pool.close();
          await server.stop();
        }
        if (profDir !== undefined) reportProfile(ctx, "churn-mix", profDir, windows, true);
      }
    }
    return results(
      plan,
      phases.map((ph) => ph.name),
      measured,
      idle,
    );
  } finally {
    await bench.close();
  }
}

function results(
  plan: BenchPlan,
  phaseNames: readonly string[],
  measured: Measured,
  idle: Map<ServerKind, number[]>,
): ScenarioResult[] {
  const out: ScenarioResult[] = [];
  for (const [kind, byRound] of measured) {
    for (const [round, byPhase] of byRound) {
      const upstream = measured.get("upstream")?.get(round);
      out.push(...roundResults(plan, kind, round, phaseNames, byPhase, upstream));
    }
    const last = out[out.length - 1];
    if (last !== undefined) {
      out[out.length - 1] = {
        ...last,
        extra: { ...last.extra, idle_cpu_ms_per_s: median(idle.get(kind) ?? []) },
      };
    }
  }
  return out;
}

/** One round's rows of one server: a row per phase, then `all`. */
function roundResults(
  plan: BenchPlan,
  kind: ServerKind,
  round: number,
  phaseNames: readonly string[],
  byPhase: Map<string, PhaseMeasure[]>,
  upstream: Map<string, PhaseMeasure[]> | undefined,
): ScenarioResult[] {
  const p = plan.churnMix;
  const out: ScenarioResult[] = [];
  const params = (phase: string): Record<string, ParamValue> => ({
    server: kind,
    round,
    phase,
    pods: p.services * p.podsPerService,
    get_streams: p.getStreams,
    profile_streams: p.watchedServices,
  });
  const row = (phase: string, list: readonly PhaseMeasure[], theirs?: readonly PhaseMeasure[]) => {
    const cpu = median(list.map((m) => m.cpuMs));
    const writes = median(list.map((m) => m.writes));
    const wall = summarize(list.map((m) => m.ms));
    const theirCpu = theirs === undefined ? undefined : median(theirs.map((m) => m.cpuMs));
    const result: ScenarioResult = {
      name: "churn-mix",
      params: params(phase),
      samples: wall.count,
      median_ms: wall.median,
      p99_ms: wall.p99,
      cpu_ms: cpu,
      ...(kind === "ours" && theirCpu !== undefined && theirCpu > 0
        ? { ratio_to_upstream: cpu / theirCpu }
        : {}),
      extra: {
        writes,
        cpu_us_per_write: (cpu * 1000) / Math.max(1, writes),
        first_thread_cpu_ms: median(list.map((m) => m.mainThreadCpuMs)),
        messages: median(list.map((m) => m.messages)),
        ...(theirs === undefined
          ? {}
          : {
              upstream_cpu_ms: theirCpu ?? 0,
              upstream_messages: median(theirs.map((m) => m.messages)),
            }),
      },
    };
    out.push(result);
  };
  const totals: PhaseMeasure[] = [];
  const theirTotals: PhaseMeasure[] = [];
  for (const phase of phaseNames) {
    const list = byPhase.get(phase) ?? [];
    const theirs = kind === "ours" ? upstream?.get(phase) : undefined;
    row(phase, list, theirs);
    list.forEach((m, i) => {
      totals[i] = add(totals[i], m);
    });
    theirs?.forEach((m, i) => {
      theirTotals[i] = add(theirTotals[i], m);
    });
  }
  row("all", totals, kind === "ours" && upstream !== undefined ? theirTotals : undefined);
  return out;
}

function add(a: PhaseMeasure | undefined, b: PhaseMeasure): PhaseMeasure {
  if (a === undefined) return b;
  return {
    writes: a.writes + b.writes,
    cpuMs: a.cpuMs + b.cpuMs,
    mainThreadCpuMs: a.mainThreadCpuMs + b.mainThreadCpuMs,
    messages: a.messages + b.messages,
    ms: a.ms + b.ms,
  };
}
