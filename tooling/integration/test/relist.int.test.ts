// Relist after 410 Gone on a real API server: the cluster backend's watches are cut (a proxy
// resets its connections and refuses new ones), objects of every cached kind are changed,
// deleted, created, replaced, created-and-deleted, etcd is compacted, and the connection comes
// back. Resuming the watches then fails with 410 Gone, so every kind lists again; each change
// must surface exactly once, deletes included, and nothing else may.
import type { ResourceKind } from "@destination/k8s-discovery";
import { EventRecorder } from "@destination/test-support/backend-suite";
import {
  CLUSTER_POD,
  externalWorkload,
  job,
  node,
  pod,
  podEndpoint,
  replicaSet,
  server,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { sleep } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import {
  type ClusterHarness,
  makeClusterHarness,
  SLICE_MODE_KINDS,
} from "../src/cluster-harness.js";
import { type IntegrationEnv, removeKubernetesService, startIntegrationEnv } from "../src/env.js";

const NS = "relist";
const fqn = (svc: string) => `${svc}.${NS}.svc.cluster.local`;
const web = (i: number, extra: { labels?: Record<string, string> } = {}) =>
  pod(`web-${i}`, {
    ...CLUSTER_POD,
    namespace: NS,
    ip: `10.244.0.${i}`,
    labels: { "pod-template-hash": "7d9f", app: "web", ...extra.labels },
    replicaSet: "web-7d9f",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });

function initialObjects(): KubeObject[] {
  return [
    node("node-a", { labels: { "topology.kubernetes.io/zone": "zone-a" } }),
    node("node-b", { labels: { "topology.kubernetes.io/zone": "zone-b" } }),
    replicaSet("web-7d9f", "web", { namespace: NS }),
    replicaSet("old-5c4b", "old", { namespace: NS }),
    job("report-1", { namespace: NS, labels: {} }),
    service("web", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      clusterIP: "10.96.1.10",
    }),
    service("api", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      clusterIP: "10.96.1.11",
    }),
    service("gone", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      clusterIP: "10.96.1.12",
    }),
    ...[1, 2, 3, 4, 5, 6].map((i) => web(i)),
    slice(
      "web-a",
      "web",
      [
        podEndpoint("web-1", "10.244.0.1", { namespace: NS }),
        podEndpoint("web-2", "10.244.0.2", { namespace: NS }),
      ],
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
    slice("web-b", "web", [podEndpoint("web-3", "10.244.0.3", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
    slice("gone-a", "gone", [podEndpoint("web-5", "10.244.0.5", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
    serviceProfile(
      fqn("web"),
      { routes: [{ name: "GET /", condition: { method: "GET" } }] },
      { namespace: NS },
    ),
    serviceProfile(
      fqn("gone"),
      { routes: [{ name: "GET /", condition: { method: "GET" } }] },
      { namespace: NS },
    ),
    server("web-http", {
      namespace: NS,
      podSelector: { app: "web" },
      port: 8080,
      proxyProtocol: "HTTP/1",
    }),
    server("web-admin", {
      namespace: NS,
      podSelector: { app: "web" },
      port: 9990,
      proxyProtocol: "HTTP/1",
    }),
    externalWorkload("vm-1", {
      namespace: NS,
      ip: "192.168.1.5",
      ports: [{ port: 8080 }],
      labels: { app: "vm-1" },
      meshTLS: { identity: "spiffe://vm-1", serverName: "vm-1" },
    }),
  ];
}

let ctx: IntegrationEnv | undefined;
beforeAll(async () => {
  ctx = await startIntegrationEnv();
  // The harness clears every cached kind; kube-apiserver would re-create this Service (on a
  // restart, or within about 10 s), which is a change, though not one the test made.
  await removeKubernetesService(ctx);
});
afterAll(async () => {
  await ctx?.stop();
});

describe("relist after 410 Gone (real kube-apiserver)", () => {
  it.each([
    ["the connection is cut", false],
    ["the connection is cut and the API server restarts", true],
  ])("surfaces every change made while %s exactly once, and nothing else", async (_, restart) => {
    if (!ctx) throw new Error("no API server");
    const { api, env } = ctx;
    const relists = new Map<ResourceKind, number>();
    const watchErrors: string[] = [];
    const harness: ClusterHarness = await makeClusterHarness(ctx, initialObjects(), {
      metrics: {
        relisted: (kind) => relists.set(kind, (relists.get(kind) ?? 0) + 1),
        errored: (kind, reason) => watchErrors.push(`${kind} ${reason}`),
      },
    });
    try {
      const recorder = new EventRecorder();
      recorder.attach(harness.cluster);
      await harness.cluster.start();
      await harness.cluster.whenSynced();
      const uidBefore = harness.cluster.pods.get(NS, "web-6")?.metadata.uid;
      const lastKnownGone = harness.cluster.services.get(NS, "gone");
      const from = recorder.events.length;
      const cutAt = new Date();

      await harness.whileDisconnected(async () => {
        // Updates (one of them twice: it surfaces once, with the last version).
        await api.apply(
          service("web", {
            namespace: NS,
            ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
            clusterIP: "10.96.1.10",
            annotations: { "config.linkerd.io/opaque-ports": "8080" },
          }),
        );
        await api.apply(
          service("api", {
            namespace: NS,
            ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
            clusterIP: "10.96.1.11",
            annotations: { note: "first" },
          }),
        );
        await api.apply(
          service("api", {
            namespace: NS,
            ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
            clusterIP: "10.96.1.11",
            annotations: { note: "second" },
          }),
        );
        await api.apply(web(1, { labels: { version: "v2" } }));
        await api.apply(
          slice(
            "web-b",
            "web",
            [
              podEndpoint("web-3", "10.244.0.3", { namespace: NS }),
              podEndpoint("web-4", "10.244.0.4", { namespace: NS }),
            ],
            { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
          ),
        );
        await api.apply(
          serviceProfile(
            fqn("web"),
            {
              routes: [{ name: "POST /", condition: { method: "POST" } }],
            },
            { namespace: NS },
          ),
        );
        await api.apply(
          server("web-http", {
            namespace: NS,
            podSelector: { app: "web" },
            port: 8080,
            proxyProtocol: "opaque",
          }),
        );
        await api.apply(node("node-a", { labels: { "topology.kubernetes.io/zone": "zone-c" } }));
        await api.apply({
          ...replicaSet("web-7d9f", "web", { namespace: NS }),
          metadata: {
            ...replicaSet("web-7d9f", "web", { namespace: NS }).metadata,
            labels: { "pod-template-hash": "7d9f" },
          },
        });
        // Deletes, one per kind.
        await api.delete("Service", NS, "gone");
        await api.delete("Pod", NS, "web-5");
        await api.delete("EndpointSlice", NS, "gone-a");
        await api.delete("ServiceProfile", NS, fqn("gone"));
        await api.delete("Server", NS, "web-admin");
        await api.delete("ExternalWorkload", NS, "vm-1");
        await api.delete("Node", undefined, "node-b");
        await api.delete("ReplicaSet", NS, "old-5c4b");
        await api.delete("Job", NS, "report-1");
        // Creates.
        await api.apply(web(7));
        await api.apply(
          slice("api-a", "api", [podEndpoint("web-7", "10.244.0.7", { namespace: NS })], {
            namespace: NS,
            ports: [{ name: "http", port: 8080, protocol: "TCP" }],
          }),
        );
        await api.apply(
          server("api-grpc", {
            namespace: NS,
            podSelector: { app: "api" },
            port: 9090,
            proxyProtocol: "gRPC",
          }),
        );
        await api.apply(node("node-c"));
        await api.apply(job("report-2", { namespace: NS, labels: {} }));
        // Replaced: deleted and created again under the same name (a new uid).
        await api.delete("Pod", NS, "web-6");
        await api.apply(web(6));
        // Created and deleted again: never seen, so nothing to report.
        await api.apply(web(8));
        await api.delete("Pod", NS, "web-8");
        if (restart) await env.restartApiServer();
      });

      const expected = [
        `add EndpointSlice ${NS}/api-a`,
        `add Job ${NS}/report-2`,
        "add Node node-c",
        `add Pod ${NS}/web-7`,
        `add Server ${NS}/api-grpc`,
        `delete EndpointSlice ${NS}/gone-a`,
        `delete ExternalWorkload ${NS}/vm-1`,
        `delete Job ${NS}/report-1`,
        "delete Node node-b",
        `delete Pod ${NS}/web-5`,
        `delete ReplicaSet ${NS}/old-5c4b`,
        `delete Server ${NS}/web-admin`,
        `delete Service ${NS}/gone`,
        `delete ServiceProfile ${NS}/${fqn("gone")}`,
        `update EndpointSlice ${NS}/web-b`,
        "update Node node-a",
        `update Pod ${NS}/web-1`,
        `update Pod ${NS}/web-6`,
        `update ReplicaSet ${NS}/web-7d9f`,
        `update Server ${NS}/web-http`,
        `update Service ${NS}/api`,
        `update Service ${NS}/web`,
        `update ServiceProfile ${NS}/${fqn("web")}`,
      ].sort();
      await eventually(() => expect(recorder.summary(from)).toEqual(expected), {
        timeoutMs: 30_000,
      });
      // Nothing more arrives: no second relist, no replayed or synthetic event.
      await sleep(3000);
      expect(recorder.summary(from)).toEqual(expected);
      expect(recorder.violations).toEqual([]);

      // Counted per key: exactly one event each.
      const perKey = new Map<string, number>();
      for (const e of recorder.events.slice(from)) {
        const id = `${e.kind} ${e.key}`;
        perKey.set(id, (perKey.get(id) ?? 0) + 1);
      }
      expect([...perKey.values()].every((n) => n === 1)).toBe(true);
      expect(perKey.size).toBe(expected.length);

      // Each event carries the right object.
      const gone = recorder.last("delete", "Service", `${NS}/gone`);
      expect(gone?.object).toEqual(lastKnownGone);
      expect(recorder.last("update", "Service", `${NS}/api`)?.object.metadata.annotations).toEqual({
        note: "second",
      });
      const replaced = recorder.last("update", "Pod", `${NS}/web-6`);
      expect(replaced?.old?.metadata.uid).toBe(uidBefore);
      expect(replaced?.object.metadata.uid).not.toBe(uidBefore);
      expect(harness.cluster.nodes.get("", "node-a")?.metadata.labels).toEqual({
        "topology.kubernetes.io/zone": "zone-c",
      });
      expect(harness.cluster.pods.get(NS, "web-8")).toBeUndefined();

      // Every served kind listed again exactly once, because its watch could not resume.
      const served = SLICE_MODE_KINDS.filter((k) => harness.cluster.servedKinds.has(k)).sort();
      expect(served).toHaveLength(9);
      expect([...relists.keys()].sort()).toEqual(served);
      expect([...relists.values()].every((n) => n === 1)).toBe(true);
      // The audit log agrees: after the cut, one list per resource, and the resumed watches
      // were answered with 410 (an ERROR event in a 200 stream, so they show as watches).
      const after = (e: { requestReceivedTimestamp: string }) =>
        new Date(e.requestReceivedTimestamp) >= cutAt;
      const lists = env
        .auditEvents({
          verb: "list",
          stage: "ResponseComplete",
          userAgent: "destination/k8s-discovery",
        })
        .filter(after);
      const listsPerResource = new Map<string, number>();
      for (const e of lists) {
        const r = e.objectRef?.resource ?? "?";
        listsPerResource.set(r, (listsPerResource.get(r) ?? 0) + 1);
      }
      expect([...listsPerResource.values()]).toEqual(new Array(9).fill(1));
      expect(watchErrors.every((e) => e.endsWith(" watch") || e.endsWith(" list"))).toBe(true);
    } finally {
      await harness.close();
    }
  });
});

describe("a watch that cannot resume (real kube-apiserver)", () => {
  // Resuming a watch from resourceVersion M, when etcd was compacted at exactly M + 1 and the
  // event at M + 1 is a delete, is not a 410: kube-apiserver answers with an ERROR event
  // `500 InternalError: etcd event received with PrevKv=nil` (the deleted object's previous
  // version is compacted away), every time. The loop must get out of it by listing again, as
  // client-go's reflector does after any watch error; otherwise the deleted object stays
  // cached for good.
  it("lists again when resuming keeps failing, and delivers the delete", async () => {
    if (!ctx) throw new Error("no API server");
    const { env } = ctx;
    const harness = await makeClusterHarness(ctx, [
      node("node-a"),
      replicaSet("web-7d9f", "web", { namespace: NS }),
      job("report-1", { namespace: NS, labels: {} }),
      job("report-2", { namespace: NS, labels: {} }),
    ]);
    try {
      const recorder = new EventRecorder();
      recorder.attach(harness.cluster);
      await harness.cluster.start();
      await harness.cluster.whenSynced();
      // Move the Job loop's position to a known version M.
      await harness.apply({ ...job("report-1", { namespace: NS, labels: { touched: "yes" } }) });
      await eventually(() =>
        expect(harness.cluster.jobs.get(NS, "report-1")?.metadata.labels?.touched).toBe("yes"),
      );
      const m = Number(harness.cluster.jobs.get(NS, "report-1")?.metadata.resourceVersion);
      const from = recorder.events.length;
      harness.proxy.cut();
      try {
        await harness.delete("Job", NS, "report-1");
        const res = await fetch(`${env.etcdEndpoint}/v3/kv/compaction`, {
          method: "POST",
          body: JSON.stringify({ revision: String(m + 1), physical: true }),
        });
        expect(res.status).toBe(200);
      } finally {
        harness.proxy.restore();
      }
      await eventually(
        () => expect(recorder.summary(from)).toEqual([`delete Job ${NS}/report-1`]),
        { timeoutMs: 20_000 },
      );
    } finally {
      await harness.close();
    }
  });
});
