// The audit's seam on the cluster backend: a fresh list beside the caches, and a forced relist
// that heals a cache which missed a watch event (the fake API server withholds one).
import type { Pod } from "@destination/core";
import { FakeApiServer } from "@destination/test-support/fake-api-server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { auditSourceOf } from "../cluster.js";
import { createKubeCluster, type KubeCluster } from "./kube-cluster.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const pod = (name: string, ip: string): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "shop" },
  spec: { containers: [{ name: "app" }] },
  status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
});

async function started(): Promise<{ server: FakeApiServer; cluster: KubeCluster }> {
  const server = new FakeApiServer();
  await server.start();
  cleanup.push(() => server.close());
  const cluster = createKubeCluster({
    kubeConfig: server.kubeConfig(),
    enableEndpointSlices: true,
    resyncMs: 0,
    backoff: { baseMs: 20, capMs: 200 },
    pageSize: 2,
  });
  cleanup.push(() => cluster.stop());
  return { server, cluster };
}

describe("forced relist and fresh lists", () => {
  it("a cache that missed a watch event holds the old object until relist() heals it", async () => {
    const { server, cluster } = await started();
    server.apply(pod("web-1", "10.0.0.1"));
    await cluster.start();
    await cluster.whenSynced();
    await eventually(() => expect(server.openWatches).toBeGreaterThan(0));

    server.withholdNextEvent("Pod", "web-1");
    server.apply(pod("web-1", "10.0.0.9"));
    server.apply(pod("web-2", "10.0.0.2")); // a later event of the same kind does arrive
    await eventually(() => expect(cluster.pods.get("shop", "web-2")).toBeDefined());
    expect(server.withheldEvents).toBe(1);
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.1");

    const audit = auditSourceOf(cluster);
    expect(audit).toBeDefined();
    const fresh = await audit?.listFresh("Pod");
    expect(fresh?.map((p) => `${p.metadata.name} ${(p as Pod).status?.podIP}`).sort()).toEqual([
      "web-1 10.0.0.9",
      "web-2 10.0.0.2",
    ]);
    // The fresh list left the cache alone.
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.1");

    const updates: string[] = [];
    cluster.pods.addHandler({ update: (_old, next) => updates.push(next.metadata.name) });
    await audit?.relist(["Pod"]);
    expect(cluster.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.9");
    // Reconciled: only the object that changed is an update.
    expect(updates).toEqual(["web-1"]);

    // The loop watches again after the relist, from the list's version.
    server.apply(pod("web-3", "10.0.0.3"));
    await eventually(() => expect(cluster.pods.get("shop", "web-3")).toBeDefined());
  });

  it("fresh lists are paged", async () => {
    const { server, cluster } = await started();
    for (let i = 0; i < 5; i++) server.apply(pod(`p-${i}`, `10.0.1.${i}`));
    await cluster.start();
    await cluster.whenSynced();
    const before = server.requests.length;
    const fresh = await cluster.listFresh("Pod");
    expect(fresh).toHaveLength(5);
    const lists = server.requests
      .slice(before)
      .filter((r) => r.path.endsWith("/pods") && !r.query.has("watch"));
    expect(lists.map((r) => r.query.get("limit"))).toEqual(["2", "2", "2"]);
    expect(lists[1]?.query.get("continue")).toBeTruthy();
  });

  it("relisting a kind the cluster does not serve resolves at once", async () => {
    const { cluster } = await started();
    await cluster.start();
    await cluster.whenSynced();
    await cluster.relist(["Endpoints"]);
    expect(await cluster.listFresh("Endpoints")).toEqual([]);
  });
});
