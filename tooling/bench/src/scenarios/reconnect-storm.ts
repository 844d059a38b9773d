/**
 * Reconnect storm: what a server goes through after a control-plane restart, a Prometheus
 * restart or a node pool replaced, when every proxy re-opens its lookups at once. On a real
 * kube-apiserver holding the `cluster` dataset (10k Running pods, 1k Services by default) plus
 * one host-port agent per node, each storm is met by a fresh, synced server process: N proxies,
 * each looking up one target within one second, on connections new at the storm's start.
 * Targets mix as a mesh's do: 80 % Service authorities (`GetProfile` and `Get`), 15 % pod IPs
 * and 5 % host ports (`GetProfile`, which carries the endpoint of an IP). Every storm runs twice per size: on a quiet cluster, and with the `cluster`
 * scenario's rolling pod replacement running through it. With `DESTINATION_UPSTREAM_BIN`,
 * upstream's Go server meets the same storms, alternating pass by pass.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "@destination/core";
import * as build from "@destination/test-support/builders";
import type { BenchPlan } from "../args.js";
import { authority, dataset, NODES, namespaceOf, podIp, SERVICE_PORT } from "../fixtures.js";
import type { PhaseWindow } from "../profile-summary.js";
import { type ProxyLookups, ProxyStorm } from "../proxy-storm.js";
import type { ParamValue, ScenarioResult } from "../report.js";
import {
  procPeakRssMb,
  resetPeakRss,
  type ServerKind,
  startServerProcess,
} from "../server-process.js";
import { median, summarize } from "../stats.js";
import { ClusterChurn } from "./cluster-churn.js";
import { openBenchCluster, populate } from "./cluster-population.js";
import { nodeName, type ScenarioContext, sleep } from "./common.js";
import { monotonicUs, reportProfile } from "./profile-report.js";

/** How long a synced server is left alone before the storm. */
const SETTLE_MS = 3000;
/** With churn, how long it has been running when the storm begins. */
const CHURN_LEAD_MS = 1000;
const STORM_TIMEOUT_MS = 180_000;
/** The port every host-port agent binds on its node. */
const AGENT_HOST_PORT = 9100;
/** Pod IPs of the agents: far above the dataset's, the churn's and the fan-out's. */
const AGENT_IP_BASE = 9_000_000;

interface Storm {
  readonly allAnsweredMs: number;
  readonly openedMs: number;
  readonly latenciesMs: Float64Array;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly idleRssMb: number;
  readonly clientCpuMs: number;
  readonly churned: number;
  readonly streams: number;
}

type Key = `${ServerKind}/${number}/${number}`;

export async function reconnectStorm(
  plan: BenchPlan,
  ctx: ScenarioContext,
): Promise<ScenarioResult[]> {
  const p = plan.reconnectStorm;
  const bench = await openBenchCluster(ctx, "reconnect-storm");
  const { env, writer, kinds, upstreamBin, logDir } = bench;
  try {
    const data = dataset(p.services, p.podsPerService);
    const t0 = performance.now();
    await populate(writer, data, hostPortAgents());
    ctx.log(
      `reconnect-storm: wrote ${writer.writes} requests in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    // Each service's last pod is the last the churn replaces: pod-IP lookups stay on live pods.
    const podIps = data.endpoints.map((refs) => (refs[refs.length - 1] as { ip: string }).ip);
    const churn = new ClusterChurn(writer, data.endpoints, p.services * p.podsPerService);
    const storms = new Map<Key, Storm[]>();
    for (let pass = 0; pass < p.passes; pass++) {
      const order = pass % 2 === 0 ? kinds : [...kinds].reverse();
      for (const kind of order) {
        for (const proxies of p.proxies) {
          for (const churnPerSecond of [0, p.churnPerSecond]) {
            const name = `${kind}-${proxies}-${churnPerSecond === 0 ? "quiet" : "churn"}-${pass}`;
            const profDir =
              ctx.cpuProfDir !== undefined && kind === "ours"
                ? join(ctx.cpuProfDir, `reconnect-storm-${name}`)
                : undefined;
            if (profDir !== undefined) mkdirSync(profDir, { recursive: true });
            const windows: PhaseWindow[] = [];
            const storm = await oneStorm(kind, {
              kubeconfig: env.kubeconfigPath,
              logFile: join(logDir, `${name}.log`),
              ...(upstreamBin === undefined ? {} : { upstreamBin }),
              ...(profDir === undefined ? {} : { cpuProfDir: profDir }),
              windows,
              lookups: lookups(proxies, p.services, podIps),
              connections: p.connections,
              windowMs: p.windowMs,
              churn: churnPerSecond === 0 ? undefined : { churn, perSecond: churnPerSecond },
            });
            if (profDir !== undefined) reportProfile(ctx, "reconnect-storm", profDir, windows);
            const key: Key = `${kind}/${proxies}/${churnPerSecond}`;
            storms.set(key, [...(storms.get(key) ?? []), storm]);
            const s = summarize(Array.from(storm.latenciesMs));
            ctx.log(
              `reconnect-storm pass ${pass + 1}/${p.passes} ${kind}, ${proxies} proxies${churnPerSecond === 0 ? "" : `, churn ${churnPerSecond}/s (${storm.churned} replaced)`}: all answered in ${storm.allAnsweredMs.toFixed(0)} ms (opened over ${storm.openedMs.toFixed(0)}), per stream p50 ${s.median.toFixed(0)} / p99 ${s.p99.toFixed(0)} ms, cpu ${storm.cpuMs.toFixed(0)} ms, peak rss ${storm.peakRssMb.toFixed(0)} MiB (idle ${storm.idleRssMb.toFixed(0)}), client cpu ${storm.clientCpuMs.toFixed(0)} ms`,
            );
          }
        }
      }
    }
    return results(p, kinds, storms);
  } finally {
    await bench.close();
  }
}

/** One agent per node that binds `AGENT_HOST_PORT` on its node's address (a node exporter). */
function hostPortAgents(): Pod[] {
  return Array.from({ length: NODES }, (_, n) =>
    build.pod(`node-agent-${n}`, {
      namespace: namespaceOf(0),
      meshed: true,
      labels: { app: "node-agent" },
      nodeName: `node-${n}`,
      serviceAccountName: "node-agent",
      ports: [{ name: "metrics", containerPort: AGENT_HOST_PORT, hostPort: AGENT_HOST_PORT }],
      ip: podIp(AGENT_IP_BASE + n),
      hostIp: hostIp(n),
    }),
  );
}

/** The address of node `n`, as the dataset's pods name it in `status.hostIP`. */
function hostIp(n: number): string {
  return `192.168.0.${(n % NODES) + 1}`;
}

/**
 * Proxy `i`'s target: a host port for one proxy in 20, a pod IP for three, a Service authority
 * for the rest; services and nodes taken in turn.
 */
function lookups(proxies: number, services: number, podIps: readonly string[]): ProxyLookups[] {
  return Array.from({ length: proxies }, (_, i) => {
    const s = i % services;
    const kind = i % 20;
    const path =
      kind === 0
        ? `${hostIp(Math.floor(i / 20))}:${AGENT_HOST_PORT}`
        : kind <= 3
          ? `${podIps[s]}:${SERVICE_PORT}`
          : authority(s);
    return {
      path,
      nodeName: nodeName(i),
      rpcs: kind <= 3 ? (["getProfile"] as const) : (["getProfile", "get"] as const),
    };
  });
}

async function oneStorm(
  kind: ServerKind,
  options: {
    kubeconfig: string;
    logFile: string;
    upstreamBin?: string;
    cpuProfDir?: string;
    windows: PhaseWindow[];
    lookups: ProxyLookups[];
    connections: number;
    windowMs: number;
    churn: { churn: ClusterChurn; perSecond: number } | undefined;
  },
): Promise<Storm> {
  const server = await startServerProcess({
    kind,
    kubeconfig: options.kubeconfig,
    logFile: options.logFile,
    ...(options.upstreamBin === undefined ? {} : { upstreamBin: options.upstreamBin }),
    ...(options.cpuProfDir === undefined ? {} : { cpuProfDir: options.cpuProfDir }),
  });
  const stopChurn = new AbortController();
  let churning: Promise<number> | undefined;
  try {
    await sleep(SETTLE_MS);
    const idleRssMb = server.rssMb();
    if (options.churn !== undefined) {
      // Long enough for any storm; stopped once the storm is answered.
      churning = options.churn.churn.run(3600, options.churn.perSecond, stopChurn.signal);
      await sleep(CHURN_LEAD_MS);
    }
    if (!resetPeakRss(server.pid)) throw new Error("cannot reset the server's peak RSS");
    const cpu0 = server.cpuMs();
    const client0 = process.cpuUsage();
    const startUs = monotonicUs();
    const storm = new ProxyStorm(
      server.grpcPort,
      options.lookups,
      options.connections,
      options.windowMs,
    );
    try {
      const outcome = await storm.run(STORM_TIMEOUT_MS);
      options.windows.push({ name: "storm", startUs, endUs: monotonicUs() });
      const cpuMs = server.cpuMs() - cpu0;
      const peakRssMb = procPeakRssMb(server.pid);
      const client = process.cpuUsage(client0);
      stopChurn.abort();
      const churned = (await churning) ?? 0;
      return {
        ...outcome,
        cpuMs,
        peakRssMb,
        idleRssMb,
        clientCpuMs: (client.user + client.system) / 1000,
        churned,
        streams: storm.streams,
      };
    } finally {
      storm.cancel();
    }
  } finally {
    stopChurn.abort();
    await churning;
    await server.stop();
  }
}

function results(
  p: BenchPlan["reconnectStorm"],
  kinds: readonly ServerKind[],
  storms: ReadonlyMap<Key, Storm[]>,
): ScenarioResult[] {
  const out: ScenarioResult[] = [];
  for (const kind of kinds) {
    for (const proxies of p.proxies) {
      for (const churnPerSecond of [0, p.churnPerSecond]) {
        const list = storms.get(`${kind}/${proxies}/${churnPerSecond}`) ?? [];
        const theirs =
          kind === "ours" ? storms.get(`upstream/${proxies}/${churnPerSecond}`) : undefined;
        const figures = stormFigures(list);
        const params: Record<string, ParamValue> = {
          server: kind,
          pods: p.services * p.podsPerService,
          proxies,
          streams: list[0]?.streams ?? 0,
          churn_per_s: churnPerSecond,
        };
        const extra: Record<string, ParamValue> = {
          stream_p50_ms: figures.p50,
          opened_ms: median(list.map((s) => s.openedMs)),
          idle_rss_mb: median(list.map((s) => s.idleRssMb)),
          client_cpu_ms: median(list.map((s) => s.clientCpuMs)),
        };
        let ratio: number | undefined;
        if (theirs !== undefined && theirs.length > 0) {
          const up = stormFigures(theirs);
          ratio = figures.allAnswered / up.allAnswered;
          extra.p99_ratio_to_upstream = figures.p99 / up.p99;
          extra.rss_ratio_to_upstream = figures.peakRss / up.peakRss;
          extra.cpu_ratio_to_upstream = figures.cpu / up.cpu;
        }
        out.push({
          name: "reconnect-storm",
          params,
          samples: list.length,
          // First call to the last stream's first answer; p99 over every stream of every pass.
          median_ms: figures.allAnswered,
          p99_ms: figures.p99,
          cpu_ms: figures.cpu,
          // The peak RSS during the storm.
          rss_mb: figures.peakRss,
          ...(ratio === undefined ? {} : { ratio_to_upstream: ratio }),
          extra,
        });
      }
    }
  }
  return out;
}

function stormFigures(list: readonly Storm[]) {
  const latencies = summarize(list.flatMap((s) => Array.from(s.latenciesMs)));
  return {
    allAnswered: median(list.map((s) => s.allAnsweredMs)),
    p50: latencies.median,
    p99: latencies.p99,
    cpu: median(list.map((s) => s.cpuMs)),
    peakRss: median(list.map((s) => s.peakRssMb)),
  };
}
