// The watch counters exist only against a Kubernetes API server, so the manifests-folder scenario
// cannot show them. Here the built server watches a real kube-apiserver (tooling/k8s-env, the
// integration suite's) that is restarted after etcd was compacted: watches end and resume
// (restarts), fail while it is down (errors), and the kinds whose resourceVersion was compacted
// away are listed again (relists). Then a real Prometheus must answer every dashboard query and
// alert expression that reads those counters with series.
//
// The self-audit, too, runs only against an API server: the server here audits every 2 s while a
// Get and a GetProfile stream are open, so every query of the dashboard's "Audit" row and every
// operand of the destination.audit alerts must answer with series.
import { type SpawnedServer, spawnServer } from "@destination/integration/binary";
import { CLUSTER_METRIC_NAMES } from "@destination/k8s-discovery";
import { type KubeEnv, startKubeEnv } from "@destination/k8s-env";
import { namespace, service } from "@destination/test-support/builders";
import { connect, get, getProfile } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertRules, dashboardQueries, KIT_FILES } from "../src/kit.js";
import { type PrometheusServer, startPrometheus } from "../src/prometheus-server.js";
import { expandDashboardVariables, metricNames, withoutThreshold } from "../src/promql.js";
import { serverMetric } from "../src/server-metrics.js";

const JOB = "linkerd-destination";
const TARGET_LABELS = {
  component: "destination",
  namespace: "linkerd",
  pod: "linkerd-destination-api",
};
const WATCH_COUNTERS = new Set<string>(Object.values(CLUSTER_METRIC_NAMES));
const readsWatchCounters = (expr: string) => metricNames(expr).some((n) => WATCH_COUNTERS.has(n));
const readsAudit = (expr: string) =>
  metricNames(expr).some((n) => n.startsWith("destination_audit_"));
/** The audit's schedule here: short, so runs happen within the test (±10 %). */
const AUDIT_INTERVAL = "2s";

let env: KubeEnv | undefined;
let server: SpawnedServer | undefined;
let prometheus: PrometheusServer | undefined;
const closers: (() => void)[] = [];

beforeAll(async () => {
  env = await startKubeEnv();
  await env.apply([
    namespace("demo"),
    service("web", { namespace: "demo", ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
  ]);
  server = await spawnServer([
    "-kubeconfig",
    env.kubeconfigPath,
    "-audit-interval",
    AUDIT_INTERVAL,
  ]);
  prometheus = await startPrometheus({
    targets: [{ job: JOB, address: `127.0.0.1:${server.adminPort}`, labels: TARGET_LABELS }],
    ruleFiles: [KIT_FILES.alerts],
  });
  const s = server;
  // Streams for the audit to check: a Get (web has no endpoints, so nothing is sent to wait
  // for) and a GetProfile on web.
  const client = connect(s.grpcPort);
  const endpoints = get(client, "web.demo.svc.cluster.local:80");
  const profile = getProfile(client, "web.demo.svc.cluster.local:80");
  closers.push(() => {
    endpoints.cancel();
    profile.cancel();
    client.close();
  });
  await profile.next();
  await eventually(
    async () => {
      expect(await serverMetric(s.adminPort, "destination_audit_streams_checked")).toBeGreaterThan(
        0,
      );
      expect(
        await serverMetric(s.adminPort, "destination_audit_runs_total", { result: "clean" }),
      ).toBeGreaterThan(0);
    },
    { timeoutMs: 30_000 },
  );
  // A change after the initial list: a watch event.
  await env.apply([
    service("api", { namespace: "demo", ports: [{ port: 8080, protocol: "TCP" }] }),
  ]);
  await eventually(async () =>
    expect(await serverMetric(s.adminPort, "k8s_watch_events_total")).toBeGreaterThan(0),
  );
  // Compacted to the current revision, then restarted: the watches resume from older versions.
  await env.compactEtcd();
  await env.restartApiServer();
  for (const name of ["k8s_watch_restarts_total", "k8s_relists_total", "k8s_watch_errors_total"]) {
    await eventually(
      async () => expect(await serverMetric(s.adminPort, name), name).toBeGreaterThan(0),
      {
        timeoutMs: 60_000,
      },
    );
  }
}, 300_000);

afterAll(async () => {
  for (const close of closers) close();
  await prometheus?.stop();
  await server?.stop();
  await env?.stop();
});

async function expectSeries(
  query: string,
  what: string,
  expectation: "series" | "empty" = "series",
): Promise<void> {
  const p = prometheus;
  if (!p) throw new Error("no Prometheus");
  await eventually(
    async () => {
      const answer = await p.query(query);
      expect(answer.status, `${what}: ${answer.error}`).toBe("success");
      if (expectation === "empty") expect(answer.data?.result, `${what}: ${query}`).toEqual([]);
      else expect(answer.data?.result.length ?? 0, `${what}: ${query}`).toBeGreaterThan(0);
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
}

describe("a real Prometheus scraping the server on a real API server", () => {
  const alerts = alertRules().filter((r) => readsWatchCounters(r.expr));
  const queries = dashboardQueries().filter((q) => readsWatchCounters(q.expr));

  it("covers the alerts and panels that read the watch counters", () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      "DestinationRelistStorm",
      "DestinationWatchErrors",
    ]);
    expect(queries.length).toBe(4);
  });

  for (const rule of alerts) {
    it(`answers alert ${rule.alert}'s expression without its threshold`, async () => {
      const query = withoutThreshold(rule.expr);
      if (query === undefined) throw new Error(`no threshold in ${rule.expr}`);
      await expectSeries(query, rule.alert);
    });
  }

  for (const q of queries) {
    it(`answers panel "${q.panel}" query ${q.refId}`, async () => {
      // A window long enough to hold samples from before and after the restart.
      const query = expandDashboardVariables(q.expr, { job: JOB, pod: ".*", rateInterval: "5m" });
      await expectSeries(query, `${q.panel} ${q.refId}`);
    });
  }
});

/**
 * The operands of an alert's expression (split at its top-level `and on`/`unless on` lines),
 * each without its threshold: every one must answer with series.
 */
const BINARY_LINE = /\n(?:and|unless|or) on \([^)]*\)\n/;
const operands = (expr: string) =>
  expr
    .trim()
    .split(BINARY_LINE)
    .map((o) => withoutThreshold(o) ?? o);

describe("a real Prometheus scraping the server's self-audit", () => {
  const alerts = alertRules().filter((r) => readsAudit(r.expr));
  const queries = dashboardQueries().filter((q) => readsAudit(q.expr));

  it("covers the audit's alerts and panels", () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual([
      "DestinationAuditDivergence",
      "DestinationAuditFailing",
      "DestinationAuditUnhealed",
    ]);
    expect(queries.length).toBe(7);
  });

  for (const rule of alerts) {
    it(`answers every operand of alert ${rule.alert}'s expression without its threshold`, async () => {
      const parts = operands(rule.expr);
      expect(parts.length, rule.expr).toBe(rule.alert === "DestinationAuditFailing" ? 4 : 1);
      for (const part of parts) {
        expect(part, rule.alert).not.toBe(rule.expr.trim());
        await expectSeries(part, rule.alert);
      }
    });
  }

  it("does not fire DestinationAuditFailing: runs complete, and the server is new", async () => {
    const rule = alerts.find((r) => r.alert === "DestinationAuditFailing");
    if (!rule) throw new Error("no DestinationAuditFailing");
    await expectSeries(rule.expr, rule.alert, "empty");
  });

  for (const q of queries) {
    it(`answers panel "${q.panel}" query ${q.refId}`, async () => {
      const query = expandDashboardVariables(q.expr, { job: JOB, pod: ".*", rateInterval: "5m" });
      await expectSeries(query, `${q.panel} ${q.refId}`);
    });
  }
});
