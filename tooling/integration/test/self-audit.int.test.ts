// The self-audit on a real kube-apiserver: lists read as protobuf (Services, Pods, slices) and
// JSON (Servers), paged, into the audit's throwaway cluster must give exactly what the caches
// give, so a quiet cluster audits clean, run after run: no false divergence, no relist.
// (The divergence itself is made and healed in apps/destination-server/test/audit.e2e.test.ts,
// where a fake API server withholds one watch event.)

import {
  CLUSTER_POD,
  clusterBasics,
  node,
  server as opaqueServer,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { get, getProfile } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { type ServerUnderTest, startServer } from "../src/server.js";

const NS = "shop";
const WEB = "web.shop.svc.cluster.local";

let ctx: IntegrationEnv | undefined;
let dst: ServerUnderTest | undefined;

const webPod = (name: string, ip: string) =>
  pod(name, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    labels: { "pod-template-hash": "5f86686c4d", app: "web" },
    replicaSet: "web-5f86686c4d",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.apply(
    ...clusterBasics(),
    node("node-b", { labels: { "topology.kubernetes.io/zone": "zone-b" } }),
    service("web", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      clusterIP: "10.96.20.20",
      annotations: { "config.linkerd.io/opaque-ports": "9090" },
    }),
    replicaSet("web-5f86686c4d", "web", { namespace: NS }),
    webPod("web-5f86686c4d-aaaaa", "10.244.2.10"),
    webPod("web-5f86686c4d-bbbbb", "10.244.2.11"),
    slice(
      "web-x1",
      "web",
      [
        podEndpoint("web-5f86686c4d-aaaaa", "10.244.2.10", { namespace: NS, zone: "zone-b" }),
        podEndpoint("web-5f86686c4d-bbbbb", "10.244.2.11", { namespace: NS, zone: "zone-b" }),
      ],
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
    opaqueServer("web-http", { namespace: NS, podSelector: { app: "web" }, port: "http" }),
  );
  dst = await startServer(ctx.env.kubeconfigPath, { auditIntervalMs: 1_000 });
});

afterAll(async () => {
  await dst?.close();
  await ctx?.stop();
});

describe("self-audit on a real kube-apiserver", () => {
  it("audits a quiet cluster clean: Get, service and endpoint profiles", async () => {
    if (!dst) throw new Error("setup failed");
    const server = dst;
    const token = JSON.stringify({ ns: NS, nodeName: "node-b" });
    const streams = [
      get(server.client, `${WEB}:80`, token),
      getProfile(server.client, `${WEB}:80`),
      getProfile(server.client, "10.244.2.10:8080"),
    ];
    try {
      for (const s of streams) await s.next();
      const clean = async () =>
        (await server.metric("destination_audit_runs_total", { result: "clean" })) ?? 0;
      const before = await clean();
      await eventually(async () => expect(await clean()).toBeGreaterThanOrEqual(before + 2), {
        timeoutMs: 20_000,
      });
      expect(await server.metric("destination_audit_streams_checked")).toBe(3);
      expect(await server.metric("destination_audit_divergent_streams")).toBe(0);
      for (const result of ["healed", "unhealed", "failed"]) {
        expect(await server.metric("destination_audit_runs_total", { result })).toBe(0);
      }
      const auditLines = server.logs
        .map((l) => JSON.parse(l) as { level: string; msg: string })
        .filter((l) => l.msg.includes("self-audit") && l.level !== "debug" && l.level !== "info");
      expect(auditLines).toEqual([]);
    } finally {
      for (const s of streams) s.cancel();
    }
  });
});
