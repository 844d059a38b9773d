// A real Prometheus scraping the built server through a scenario (Get and GetProfile streams,
// churn, stalled streams that overflow), then asked for every dashboard query and every alert's
// expression: each must return series, or, where only a Kubernetes API server makes them, be
// accepted and name a metric the server declares.
import { type SpawnedServer, spawnServer } from "@destination/integration/binary";
import { CLUSTER_METRIC_NAMES } from "@destination/k8s-discovery";
import { connect, get, getProfile } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertRules, dashboardQueries, KIT_FILES, ruleGroups } from "../src/kit.js";
import { type PrometheusServer, startPrometheus } from "../src/prometheus-server.js";
import { expandDashboardVariables, metricNames, withoutThreshold } from "../src/promql.js";
import { prometheusVersion } from "../src/promtool.js";
import {
  BUSY,
  churnWeb,
  ManifestFolder,
  overflowGet,
  overflowGetProfile,
  WEB,
  writeInitialCluster,
} from "../src/scenario.js";
import { serverMetricFamilies } from "../src/server-metrics.js";

/** The labels a PodMonitor scrape gives the server's series (job and component: ours). */
const TARGET_LABELS = {
  component: "destination",
  namespace: "linkerd",
  pod: "linkerd-destination-e2e",
};
const JOB = "linkerd-destination";

/**
 * Counters only a Kubernetes API server moves (watch restarts, relists, errors, events): the
 * folder backend the scenario uses has no watch, so it exports none of them. Their names come
 * from k8s-discovery, which declares them.
 */
const API_SERVER_ONLY = new Set<string>(Object.values(CLUSTER_METRIC_NAMES));

/**
 * The self-audit runs only against a Kubernetes API server (apps/destination-server README
 * "Self-audit"): with the manifests folder the server exports no `destination_audit_*` series.
 * The audit's panel queries and its alerts (group destination.audit) are left out here on
 * purpose; live-apiserver.test.ts runs the server with the audit on and asks for them.
 */
const readsAudit = (expr: string) =>
  metricNames(expr).some((n) => n.startsWith("destination_audit_"));
const AUDIT_GROUP = "destination.audit";
const alertsHere = () =>
  ruleGroups()
    .filter((g) => g.name !== AUDIT_GROUP)
    .flatMap((g) => g.rules);
const queriesHere = () => dashboardQueries().filter((q) => !readsAudit(q.expr));

type Probe = { query: string; expect: "series" | "positive" | "empty" | "accepted" };
const SELECTOR = 'job=~"linkerd-destination|linkerd-controller",component="destination"';
const stripped = (expr: string) => {
  const query = withoutThreshold(expr);
  if (query === undefined) throw new Error(`no threshold to strip in ${expr}`);
  return query;
};

/** Per alert, what the live Prometheus is asked and what it must answer. */
const ALERT_PROBES: Record<string, (expr: string) => Probe[]> = {
  DestinationServerDown: (e) => [{ query: stripped(e), expect: "positive" }],
  // Not firing (there is a target), and its argument has series.
  DestinationServerAbsent: (e) => [
    { query: e, expect: "empty" },
    { query: `up{${SELECTOR}}`, expect: "series" },
  ],
  // The scenario overflowed a Get and a GetProfile stream, once each: the series are there, but
  // increase() does not count a counter's first sample, so the sum may be 0 (the raw counters
  // are checked above 0 below).
  DestinationQueueOverflows: (e) => [{ query: stripped(e), expect: "series" }],
  DestinationRelistStorm: (e) => [{ query: stripped(e), expect: "accepted" }],
  DestinationWatchErrors: (e) => [{ query: stripped(e), expect: "accepted" }],
  // No observation in folder mode: the quantile is NaN, but the series are there.
  DestinationInformerLagHigh: (e) => [{ query: stripped(e), expect: "series" }],
  DestinationEventLoopDelayHigh: (e) => [{ query: stripped(e), expect: "positive" }],
  // No kube-state-metrics here: the fallback branch decides; with its threshold at 0 it fires.
  DestinationMemoryNearLimit: (e) => [
    { query: e.replace("> 734003200", "> 0"), expect: "positive" },
    { query: e, expect: "empty" },
  ],
};

let folder: ManifestFolder | undefined;
let server: SpawnedServer | undefined;
let prometheus: PrometheusServer | undefined;
let families = new Set<string>();
const closers: (() => void)[] = [];

beforeAll(async () => {
  console.log(`[observability] ${prometheusVersion()}`);
  folder = await ManifestFolder.create();
  await writeInitialCluster(folder);
  server = await spawnServer(["--manifests", folder.dir, "--stream-queue-capacity", "2"]);
  prometheus = await startPrometheus({
    targets: [{ job: JOB, address: `127.0.0.1:${server.adminPort}`, labels: TARGET_LABELS }],
    ruleFiles: [KIT_FILES.alerts],
  });

  // Streams an operator's proxies would hold: Get and GetProfile on a Service, GetProfile on a
  // pod's address; web churns under them.
  const client = connect(server.grpcPort);
  const endpoints = get(client, `${WEB}:80`);
  const profile = getProfile(client, `${WEB}:80`);
  const workload = getProfile(client, "10.1.0.1:8080");
  closers.push(() => {
    for (const s of [endpoints, profile, workload]) s.cancel();
    client.close();
  });
  await endpoints.next();
  await profile.next();
  await workload.next();
  await churnWeb(folder, endpoints);
  const rounds = await overflowGet(folder, server.grpcPort, server.adminPort);
  const versions = await overflowGetProfile(folder, server.grpcPort, server.adminPort);
  console.log(
    `[observability] Get overflowed after ${rounds} rounds, GetProfile after ${versions} versions`,
  );
  families = await serverMetricFamilies(server.adminPort);
}, 300_000);

afterAll(async () => {
  for (const close of closers) close();
  await prometheus?.stop();
  await server?.stop();
  await folder?.dispose();
});

async function check(probe: Probe, what: string): Promise<void> {
  if (!prometheus) throw new Error("no Prometheus");
  const p = prometheus;
  await eventually(
    async () => {
      const answer = await p.query(probe.query);
      expect(answer.status, `${what}: ${answer.error}`).toBe("success");
      const result = answer.data?.result ?? [];
      const values = result.map((r) => Number(r.value[1]));
      if (probe.expect === "series")
        expect(result.length, `${what}: ${probe.query}`).toBeGreaterThan(0);
      if (probe.expect === "positive") {
        expect(result.length, `${what}: ${probe.query}`).toBeGreaterThan(0);
        expect(
          values.every((v) => v > 0),
          `${what}: ${JSON.stringify(result)}`,
        ).toBe(true);
      }
      if (probe.expect === "empty") expect(result, `${what}: ${probe.query}`).toEqual([]);
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

describe("a real Prometheus scraping the server", () => {
  it("scrapes it and loads every alert rule without an error", async () => {
    await check({ query: `up{job="${JOB}"} == 1`, expect: "positive" }, "up");
    const rules = await prometheus?.rules();
    expect(rules?.map((r) => r.name).sort()).toEqual(
      alertRules()
        .map((r) => r.alert)
        .sort(),
    );
    for (const rule of rules ?? [])
      expect(rule.health, `${rule.name}: ${rule.lastError}`).not.toBe("err");
  });

  it("has a probe for every alert but the audit's, which read only audit series", () => {
    expect(Object.keys(ALERT_PROBES).sort()).toEqual(
      alertsHere()
        .map((r) => r.alert)
        .sort(),
    );
    const audit = ruleGroups().find((g) => g.name === AUDIT_GROUP)?.rules ?? [];
    expect(audit.length).toBeGreaterThan(0);
    for (const rule of audit) expect(readsAudit(rule.expr), rule.alert).toBe(true);
    for (const rule of alertsHere()) expect(readsAudit(rule.expr), rule.alert).toBe(false);
    expect(dashboardQueries().length - queriesHere().length).toBeGreaterThan(0);
  });

  for (const rule of alertsHere()) {
    it(`answers alert ${rule.alert}'s expression`, async () => {
      const probes = ALERT_PROBES[rule.alert]?.(rule.expr) ?? [];
      expect(probes.length).toBeGreaterThan(0);
      for (const probe of probes) {
        if (probe.expect === "accepted") {
          expect(
            metricNames(probe.query).every((n) => API_SERVER_ONLY.has(n)),
            probe.query,
          ).toBe(true);
        }
        await check(probe, rule.alert);
      }
    });
  }

  for (const q of queriesHere()) {
    it(`answers panel "${q.panel}" query ${q.refId}`, async () => {
      const query = expandDashboardVariables(q.expr, { job: JOB, pod: ".*", rateInterval: "30s" });
      const names = metricNames(q.expr);
      const apiServerOnly = names.length > 0 && names.every((n) => API_SERVER_ONLY.has(n));
      // Every metric named is one the server exports now or one only an API server moves.
      for (const name of names.filter((n) => !n.includes(".+"))) {
        const family = name.replace(/_(bucket|sum|count)$/, "");
        expect(families.has(family) || API_SERVER_ONLY.has(name), `${q.panel}: ${name}`).toBe(true);
      }
      await check(
        { query, expect: apiServerOnly ? "accepted" : "series" },
        `${q.panel} ${q.refId}`,
      );
    });
  }

  it("shows the overflows the scenario caused, per service and per profile", async () => {
    await check(
      { query: `endpoint_updates_queue_overflow{service="${BUSY}:8080"} > 0`, expect: "positive" },
      "Get overflow",
    );
    await check(
      {
        query: `profile_updates_queue_overflow{fqn="${BUSY}",port="8080"} > 0`,
        expect: "positive",
      },
      "GetProfile overflow",
    );
  });
});
