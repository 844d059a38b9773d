// Syncing kinds that have no objects. kube-apiserver answers a metadata-only list
// (`Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`) of an empty
// collection with `"items": null`, where a full list says `"items": []`. The cluster backend
// reads Nodes, ReplicaSets and Jobs as metadata only (as protobuf where the server has it, this
// JSON otherwise), so these tests pin what must hold on any cluster
// with no Jobs (or no ReplicaSets, or no Nodes).
import { createKubeCluster, type KubeCluster } from "@destination/k8s-discovery";
import { EventRecorder } from "@destination/test-support/backend-suite";
import {
  CLUSTER_POD,
  job,
  node,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { get, ipv4 } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeClusterHarness } from "../src/cluster-harness.js";
import { type IntegrationEnv, removeKubernetesService, startIntegrationEnv } from "../src/env.js";
import { startServer } from "../src/server.js";

const METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";

/** Resolves true once `promise` settles within `ms`, false otherwise. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let ctx: IntegrationEnv | undefined;
beforeAll(async () => {
  ctx = await startIntegrationEnv();
});
afterAll(async () => {
  await ctx?.stop();
});

describe("kinds without objects (real kube-apiserver)", () => {
  it("is how kube-apiserver answers: an empty metadata-only list has items null", async () => {
    const res = await ctx?.env.request<{ items: unknown }>(
      "GET",
      "/apis/batch/v1/jobs?limit=500",
      undefined,
      { headers: { accept: METADATA_LIST } },
    );
    expect(res?.status).toBe(200);
    expect(res?.body.items).toBeNull();
  });

  it("syncs the cluster backend on an empty cluster", async () => {
    if (!ctx) throw new Error("no API server");
    const cluster: KubeCluster = await createKubeCluster({
      kubeconfigPath: ctx.env.kubeconfigPath,
      enableEndpointSlices: true,
      resyncMs: 0,
    });
    try {
      await cluster.start();
      expect(await within(cluster.whenSynced(), 15_000)).toBe(true);
      expect(cluster.jobs.list()).toEqual([]);
    } finally {
      await cluster.stop();
    }
  });

  it("starts destination-server on a cluster without Jobs and serves Get", async () => {
    if (!ctx) throw new Error("no API server");
    const { api, env } = ctx;
    await api.apply(
      node("node-a"),
      service("cart", {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
        clusterIP: "10.96.3.10",
      }),
      replicaSet("cart-6d8f", "cart", { namespace: "shop" }),
      pod("cart-6d8f-x1", {
        ...CLUSTER_POD,
        namespace: "shop",
        ip: "10.244.3.1",
        meshed: false,
        labels: { "pod-template-hash": "6d8f" },
        replicaSet: "cart-6d8f",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
      slice("cart-1", "cart", [podEndpoint("cart-6d8f-x1", "10.244.3.1", { namespace: "shop" })], {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    const dst = await startServer(env.kubeconfigPath, { cacheSyncTimeoutMs: 15_000 });
    try {
      const stream = get(dst.client, "cart.shop.svc.cluster.local:8080");
      expect(await stream.next()).toEqual({
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: ipv4("10.244.3.1") }, port: 8080 },
              weight: 10000,
              metricLabels: {
                deployment: "cart",
                pod: "cart-6d8f-x1",
                pod_template_hash: "6d8f",
                serviceaccount: "default",
                zone: "",
                zone_locality: "unknown",
              },
            },
          ],
          metricLabels: { namespace: "shop", service: "cart" },
        },
      });
      stream.cancel();
    } finally {
      await dst.close();
    }
  });

  it("relists a kind whose last object was deleted while disconnected", async () => {
    if (!ctx) throw new Error("no API server");
    await removeKubernetesService(ctx);
    // Every metadata-only kind has an object at first, so the backend syncs.
    const harness = await makeClusterHarness(ctx, [
      node("node-a"),
      replicaSet("worker-5d4f", "worker", { namespace: "batch" }),
      job("report-1", { namespace: "batch", labels: {} }),
    ]);
    try {
      const recorder = new EventRecorder();
      recorder.attach(harness.cluster);
      await harness.cluster.start();
      expect(await within(harness.cluster.whenSynced(), 15_000)).toBe(true);
      const from = recorder.events.length;
      await harness.whileDisconnected(async () => {
        await harness.delete("Job", "batch", "report-1");
        // A later write, so that resuming the watch fails with 410 Gone.
        await harness.apply(
          node("node-a", { labels: { "topology.kubernetes.io/zone": "zone-b" } }),
        );
      });
      await eventually(
        () =>
          expect(recorder.summary(from)).toEqual([
            "delete Job batch/report-1",
            "update Node node-a",
          ]),
        { timeoutMs: 15_000 },
      );
      expect(harness.cluster.jobs.list()).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});
