import type { KubeObject, Logger, Pod } from "@destination/core";
import { EventRecorder } from "@destination/test-support/backend-suite";
import {
  FakeApiServer,
  type FakeApiServerOptions,
} from "@destination/test-support/fake-api-server";
import { ManualClock } from "@destination/test-support/manual-clock";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import type { ClusterMetrics } from "../cluster-metrics.js";
import { MemoryCache } from "../memory/memory-cache.js";
import { RESOURCE_KINDS, type ResourceKind } from "../resource-kind.js";
import { createKubeCluster, type KubeCluster, type KubeClusterOptions } from "./kube-cluster.js";
import { loadKubeConfig } from "./kube-config.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  const logger: Logger = {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
  return {
    logger,
    lines,
    at: (level: string) => lines.filter((l) => l.level === level).map((l) => l.message),
  };
}

function countingMetrics() {
  const counts = new Map<string, number>();
  const bump = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const metrics: ClusterMetrics = {
    watchRestarted: (kind) => bump(`restart ${kind}`),
    relisted: (kind) => bump(`relist ${kind}`),
    errored: (kind, reason) => bump(`error ${kind} ${reason}`),
    eventReceived: (kind, type) => bump(`event ${kind} ${type}`),
    observeLag: (kind) => bump(`lag ${kind}`),
  };
  return { metrics, count: (key: string) => counts.get(key) ?? 0 };
}

async function fakeServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const server = new FakeApiServer(options);
  await server.start();
  cleanup.push(() => server.close());
  return server;
}

function cluster(server: FakeApiServer, options: Partial<KubeClusterOptions> = {}): KubeCluster {
  const created = createKubeCluster({
    kubeConfig: server.kubeConfig(),
    enableEndpointSlices: true,
    resyncMs: 0,
    backoff: { baseMs: 20, capMs: 200 },
    ...options,
  });
  cleanup.push(() => created.stop());
  return created;
}

const pod = (name: string, ip: string, extra: Partial<Pod["metadata"]> = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "shop", ...extra },
  spec: { containers: [{ name: "app" }] },
  status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
});
const replicaSet = (name: string, owner: string): KubeObject =>
  ({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      namespace: "shop",
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: owner }],
    },
    spec: { replicas: 2 },
  }) as KubeObject;
const allKinds = Object.keys(RESOURCE_KINDS) as ResourceKind[];
const requestsTo = (server: FakeApiServer, plural: string, watch: boolean) =>
  server.requests.filter(
    (r) => r.path.endsWith(`/${plural}`) && (r.query.get("watch") === "true") === watch,
  );

describe("cluster backend: startup checks", () => {
  it("fails with `EndpointSlice resource not found` when slices are enabled but not served", async () => {
    const server = await fakeServer({ served: allKinds.filter((k) => k !== "EndpointSlice") });
    await expect(cluster(server).start()).rejects.toThrow(/^EndpointSlice resource not found$/);
  });

  it("does not require that any EndpointSlice exists, unlike upstream", async () => {
    const server = await fakeServer();
    const c = cluster(server);
    await c.start();
    await c.whenSynced();
    expect(c.endpointSlices.size).toBe(0);
    expect(c.servedKinds.has("EndpointSlice")).toBe(true);
  });

  it("caches only the kinds it is limited to, as a remote cluster of the cluster store", async () => {
    const server = await fakeServer();
    const remote = cluster(server, { kinds: ["Service", "EndpointSlice", "Pod", "Server"] });
    await remote.start();
    await remote.whenSynced();
    expect([...remote.servedKinds].sort()).toEqual(["EndpointSlice", "Pod", "Server", "Service"]);
    expect(requestsTo(server, "externalworkloads", false)).toHaveLength(0);
    expect(requestsTo(server, "nodes", false)).toHaveLength(0);
    expect(remote.externalWorkloads.hasSynced()).toBe(true);
  });

  it("caches Endpoints only in Endpoints mode, and EndpointSlices only in slice mode", async () => {
    const server = await fakeServer({ served: allKinds.filter((k) => k !== "EndpointSlice") });
    const endpointsMode = cluster(server, { enableEndpointSlices: false });
    await endpointsMode.start();
    await endpointsMode.whenSynced();
    expect(endpointsMode.servedKinds.has("Endpoints")).toBe(true);
    expect(endpointsMode.servedKinds.has("EndpointSlice")).toBe(false);
    expect(requestsTo(server, "endpoints", false)).toHaveLength(1);
    expect(requestsTo(server, "endpointslices", false)).toHaveLength(0);

    const sliceServer = await fakeServer();
    const sliceMode = cluster(sliceServer);
    await sliceMode.start();
    await sliceMode.whenSynced();
    expect(sliceMode.servedKinds.has("Endpoints")).toBe(false);
    expect(requestsTo(sliceServer, "endpoints", false)).toHaveLength(0);
    expect(sliceMode.endpoints.hasSynced()).toBe(true);
  });

  it("fails when listing pods cluster-wide is not allowed", async () => {
    const server = await fakeServer({ denied: ["pods"] });
    await expect(cluster(server).start()).rejects.toThrow(
      /^not authorized to access pods: RBAC: the fake says no$/,
    );
  });

  it("serves without missing Linkerd CRDs, saying once which are missing", async () => {
    const server = await fakeServer({
      served: allKinds.filter((k) => k !== "Server" && k !== "ExternalWorkload"),
    });
    const { logger, at } = recordingLogger();
    const c = cluster(server, { logger });
    await c.start();
    await c.whenSynced();
    expect(at("warn")).toEqual([
      "serving without the Linkerd CRDs that are not installed: server CRD (policy.linkerd.io/v1beta3) not found; ExternalWorkload CRD not found",
    ]);
    expect(c.servedKinds.has("Server")).toBe(false);
    expect(c.servedKinds.has("ExternalWorkload")).toBe(false);
    expect(c.servedKinds.has("ServiceProfile")).toBe(true);
    expect(c.servers.hasSynced()).toBe(true);
    expect(requestsTo(server, "servers", false)).toHaveLength(0);
  });

  it("checks access to every CRD, not only the first as upstream does", async () => {
    const server = await fakeServer({ denied: ["externalworkloads.workload.linkerd.io"] });
    await expect(cluster(server).start()).rejects.toThrow(
      /^not authorized to access externalworkloads\.workload\.linkerd\.io: RBAC/,
    );
  });

  it("loads a kubeconfig document with a chosen context, and rejects an unknown context", async () => {
    const server = await fakeServer();
    server.apply(pod("web-1", "10.0.0.1"));
    const c = createKubeCluster({
      kubeconfigYaml: server.kubeconfigYaml(),
      context: "fake",
      enableEndpointSlices: true,
      resyncMs: 0,
    });
    cleanup.push(() => c.stop());
    await c.start();
    await c.whenSynced();
    expect(c.pods.get("shop", "web-1")).toBeDefined();
    expect(() =>
      loadKubeConfig({ kubeconfigYaml: server.kubeconfigYaml(), context: "nope" }),
    ).toThrow(/no context named "nope"/);
  });
});

describe("cluster backend: list and watch", () => {
  it("lists in pages, then watches from the list's version with bookmarks and a server timeout", async () => {
    const server = await fakeServer();
    for (let i = 1; i <= 5; i++) server.apply(pod(`web-${i}`, `10.0.0.${i}`));
    const c = cluster(server, { pageSize: 2 });
    await c.start();
    await c.whenSynced();
    expect(c.pods.size).toBe(5);
    const lists = requestsTo(server, "pods", false);
    // The first page asks the watch cache (rv=0); a server without one pages, and the
    // continue tokens are followed without a version, as the server requires.
    expect(
      lists.map((r) => [
        r.query.get("limit"),
        r.query.has("continue"),
        r.query.get("resourceVersion"),
      ]),
    ).toEqual([
      ["2", false, "0"],
      ["2", true, null],
      ["2", true, null],
    ]);
    await eventually(() => expect(requestsTo(server, "pods", true)).toHaveLength(1));
    const [watch] = requestsTo(server, "pods", true);
    expect(watch?.query.get("resourceVersion")).toBe(
      c.pods.get("shop", "web-5")?.metadata.resourceVersion,
    );
    expect(watch?.query.get("allowWatchBookmarks")).toBe("true");
    const timeout = Number(watch?.query.get("timeoutSeconds"));
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThanOrEqual(600);
    expect(c.pods.get("shop", "web-1")).toMatchObject({ apiVersion: "v1", kind: "Pod" });
  });

  it("takes the first list from the watch cache in one response, whatever the page size", async () => {
    const server = await fakeServer({ watchCache: true });
    for (let i = 1; i <= 5; i++) server.apply(pod(`web-${i}`, `10.0.0.${i}`));
    const c = cluster(server, { pageSize: 2 });
    await c.start();
    await c.whenSynced();
    expect(c.pods.size).toBe(5);
    const lists = requestsTo(server, "pods", false);
    expect(lists.map((r) => [r.query.get("resourceVersion"), r.query.has("continue")])).toEqual([
      ["0", false],
    ]);
  });

  it("starts a list over, consistently, when its continue token expires", async () => {
    let server: FakeApiServer | undefined;
    let compacted = false;
    server = await fakeServer({
      onRequest: (r) => {
        if (compacted || !r.path.endsWith("/pods") || !r.query.has("continue")) return;
        compacted = true;
        server?.apply(pod("web-6", "10.0.0.6"));
        server?.compact();
      },
    });
    for (let i = 1; i <= 5; i++) server.apply(pod(`web-${i}`, `10.0.0.${i}`));
    const c = cluster(server, { pageSize: 2 });
    await c.start();
    await c.whenSynced();
    expect(c.pods.size).toBe(6);
    const lists = requestsTo(server, "pods", false);
    expect(lists.map((r) => [r.query.get("resourceVersion"), r.query.has("continue")])).toEqual([
      ["0", false],
      [null, true],
      [null, false],
      [null, true],
      [null, true],
    ]);
  });

  it("reads Nodes, ReplicaSets and Jobs as metadata only", async () => {
    const server = await fakeServer();
    server.apply(replicaSet("web-5d4f", "web"));
    const c = cluster(server);
    await c.start();
    await c.whenSynced();
    // Lists ask for protobuf metadata first; this server answers JSON metadata, read as well.
    for (const plural of ["nodes", "replicasets", "jobs"]) {
      expect(requestsTo(server, plural, false)[0]?.accept).toBe(
        "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      );
    }
    await eventually(() => expect(requestsTo(server, "replicasets", true)).toHaveLength(1));
    // Watches ask for protobuf too; this server answers JSON, read as well.
    expect(requestsTo(server, "replicasets", true)[0]?.accept).toBe(
      "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    );
    // Pods are full objects: listed and watched as protobuf where the server has it (this one
    // answers JSON, which is read as well).
    expect(requestsTo(server, "pods", false)[0]?.accept).toBe(
      "application/vnd.kubernetes.protobuf, application/json",
    );
    await eventually(() => expect(requestsTo(server, "pods", true)).toHaveLength(1));
    expect(requestsTo(server, "pods", true)[0]?.accept).toBe(
      "application/vnd.kubernetes.protobuf, application/json",
    );
    const rs = c.replicaSets.get("shop", "web-5d4f");
    expect(rs).toEqual({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: expect.objectContaining({
        name: "web-5d4f",
        ownerReferences: [expect.objectContaining({ kind: "Deployment" })],
      }),
    });
    server.apply(replicaSet("web-77aa", "web"));
    await eventually(() => expect(c.replicaSets.get("shop", "web-77aa")).toBeDefined());
    expect(c.replicaSets.get("shop", "web-77aa")).not.toHaveProperty("spec");
  });

  it("falls back to full objects kept as metadata when the server refuses metadata-only reads", async () => {
    const server = await fakeServer({ refuseMetadata: true });
    server.apply(replicaSet("web-5d4f", "web"));
    const { logger, at } = recordingLogger();
    const c = cluster(server, { logger });
    await c.start();
    await c.whenSynced();
    expect(c.replicaSets.get("shop", "web-5d4f")).toEqual({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: expect.objectContaining({ name: "web-5d4f" }),
    });
    expect(at("info")).toContain(
      "the server refuses metadata-only replicasets; reading full objects and keeping their metadata",
    );
    server.apply(replicaSet("web-77aa", "web"));
    await eventually(() => expect(c.replicaSets.get("shop", "web-77aa")).toBeDefined());
    expect(
      c.podOwner(
        pod("p", "10.0.0.1", { ownerReferences: [{ kind: "ReplicaSet", name: "web-77aa" }] }),
      ),
    ).toEqual({
      kind: "deployment",
      name: "web",
    });
  });

  it("resumes an ended watch from the last version seen, bookmarks included, without relisting", async () => {
    const server = await fakeServer();
    server.apply(pod("web-1", "10.0.0.1"));
    const { metrics, count } = countingMetrics();
    const c = cluster(server, { metrics });
    const events = new EventRecorder();
    events.attach(c);
    await c.start();
    await c.whenSynced();
    await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
    server.apply(pod("web-2", "10.0.0.2"));
    await eventually(() => expect(c.pods.get("shop", "web-2")).toBeDefined());
    server.apply(replicaSet("unrelated", "x")); // moves the server's version past web-2's
    server.bookmark();
    await eventually(() => expect(count("event Pod BOOKMARK")).toBe(1));
    const bookmarkVersion = server.get("ReplicaSet", "shop", "unrelated")?.metadata.resourceVersion;
    server.endWatches();
    await eventually(() => expect(requestsTo(server, "pods", true)).toHaveLength(2));
    expect(requestsTo(server, "pods", true)[1]?.query.get("resourceVersion")).toBe(bookmarkVersion);
    expect(requestsTo(server, "pods", false)).toHaveLength(1);
    expect(count("restart Pod")).toBe(1);
    expect(count("relist Pod")).toBe(0);
    expect(events.summary().filter((l) => l.includes("Pod"))).toEqual([
      "add Pod shop/web-1",
      "add Pod shop/web-2",
    ]);
    expect(events.violations).toEqual([]);
  });

  it.each(["event", "status"] as const)(
    "relists and reconciles when the watch expires (410 as %s), counting the relist",
    async (expiredAs) => {
      const server = await fakeServer({ expiredAs });
      server.apply(pod("stays", "10.0.0.1"));
      server.apply(pod("goes", "10.0.0.2"));
      const { metrics, count } = countingMetrics();
      const c = cluster(server, { metrics });
      const events = new EventRecorder();
      events.attach(c);
      await c.start();
      await c.whenSynced();
      await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
      const from = events.events.length;
      await server.disconnected(() => {
        server.delete("Pod", "shop", "goes");
        server.apply(pod("new", "10.0.0.3"));
      });
      await eventually(() =>
        expect(events.summary(from)).toEqual(["add Pod shop/new", "delete Pod shop/goes"]),
      );
      expect(count("relist Pod")).toBe(1);
      // The relist is consistent: a lagging watch cache could take the store back in time.
      expect(requestsTo(server, "pods", false).map((r) => r.query.get("resourceVersion"))).toEqual([
        "0",
        null,
      ]);
      expect(c.pods.stats().relists).toBe(1);
      expect(events.violations).toEqual([]);
    },
  );

  it("backs off while lists fail, never spinning, and syncs once they succeed", async () => {
    const server = await fakeServer();
    server.apply(pod("web-1", "10.0.0.1"));
    server.failNext(Number.POSITIVE_INFINITY);
    const { metrics, count } = countingMetrics();
    const { logger, at } = recordingLogger();
    const clock = new ManualClock();
    const c = cluster(server, { metrics, logger, backoff: { baseMs: 50, capMs: 200 }, clock });
    await c.start();
    // Every loop's list fails, so each one ends up asleep in its backoff: one timer per loop.
    const loops = allKinds.length - 1;
    const allAsleep = () => eventually(() => expect(clock.pendingTimers).toBe(loops));
    for (let elapsed = 0; elapsed < 1000; elapsed += 10) {
      await allAsleep();
      clock.advance(10);
    }
    await allAsleep();
    const podLists = requestsTo(server, "pods", false).length;
    // 1 s of failures at 50..200 ms ceilings with full jitter: a handful of tries, not a loop.
    expect(podLists).toBeGreaterThanOrEqual(3);
    expect(podLists).toBeLessThan(40);
    expect(c.hasSynced()).toBe(false);
    expect(count("error Pod list")).toBe(podLists);
    expect(at("warn")).toContain("listing pods failed; retrying");
    server.failNext(0);
    clock.advance(200);
    await c.whenSynced();
    expect(c.pods.get("shop", "web-1")).toBeDefined();
  });

  it("resumes after the connection drops, and after a line it cannot read, without losing events", async () => {
    const server = await fakeServer();
    const { metrics, count } = countingMetrics();
    const c = cluster(server, { metrics });
    const events = new EventRecorder();
    events.attach(c);
    await c.start();
    await c.whenSynced();
    await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
    server.sendRaw("{this is not json");
    server.apply(pod("web-1", "10.0.0.1"));
    await eventually(() => expect(c.pods.get("shop", "web-1")).toBeDefined());
    expect(count("error Pod decode")).toBe(1);
    await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
    await server.disconnected(() => {});
    server.apply(pod("web-2", "10.0.0.2"));
    await eventually(() => expect(c.pods.get("shop", "web-2")).toBeDefined());
    expect(events.summary()).toEqual(["add Pod shop/web-1", "add Pod shop/web-2"]);
    expect(events.violations).toEqual([]);
  });

  it("skips an invalid object from a list or a watch with a warning, counting it, and keeps the last valid version", async () => {
    const server = await fakeServer();
    server.apply(pod("web-0", "10.0.0.1", { labels: { app: 5 as never } }));
    const { logger, at } = recordingLogger();
    const { metrics, count } = countingMetrics();
    const c = cluster(server, { logger, metrics });
    await c.start();
    await c.whenSynced();
    expect(c.pods.get("shop", "web-0")).toBeUndefined();
    server.apply(pod("web-1", "10.0.0.2"));
    await eventually(() => expect(c.pods.get("shop", "web-1")).toBeDefined());
    const broken: Pod = { ...pod("web-1", "10.0.0.3"), spec: { containers: "app" as never } };
    server.apply(broken);
    await eventually(() => expect(count("error Pod invalid")).toBe(2));
    expect(c.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.2");
    expect(at("warn")).toEqual([
      "skipping an invalid Pod shop/web-0: metadata.labels.app: expected string, got 5",
      'skipping an invalid Pod shop/web-1: spec.containers: expected Array, got "app"',
    ]);
  });

  it("closes its watches on stop() and makes no more requests", async () => {
    const server = await fakeServer();
    const clock = new ManualClock();
    const c = cluster(server, { clock });
    await c.start();
    await c.whenSynced();
    await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
    await c.stop();
    await eventually(() => expect(server.openWatches).toBe(0));
    const requests = server.requests.length;
    // The loops have returned, and no timer is left that could start one again.
    expect(clock.pendingTimers).toBe(0);
    clock.advance(10 * 60_000);
    expect(server.requests.length).toBe(requests);
  });

  it("re-delivers every object as update(obj, obj) on each resync, keeping identity", async () => {
    const server = await fakeServer();
    server.apply(pod("web-1", "10.0.0.1"));
    const clock = new ManualClock();
    const c = cluster(server, { resyncMs: 50, clock });
    const updates: [KubeObject, KubeObject][] = [];
    c.pods.addHandler({ update: (o, n) => void updates.push([o, n]) });
    await c.start();
    await c.whenSynced();
    clock.advance(100);
    await eventually(() => expect(updates.length).toBeGreaterThanOrEqual(2));
    const stored = c.pods.get("shop", "web-1");
    for (const [o, n] of updates) {
      expect(o).toBe(stored);
      expect(n).toBe(stored);
    }
  });

  it("observes informer lag once for an update whose Update time moved, never for a resync", async () => {
    const server = await fakeServer();
    const written = (ip: string, time: string) =>
      pod("web-1", ip, { managedFields: [{ operation: "Update", time }] });
    server.apply(written("10.0.0.1", "2026-01-01T00:00:00Z"));
    const { metrics, count } = countingMetrics();
    const c = cluster(server, { metrics, resyncMs: 20 });
    let resyncs = 0;
    c.pods.addHandler({ update: (o, n) => void (o === n && resyncs++) });
    await c.start();
    await c.whenSynced();
    await eventually(() => expect(resyncs).toBeGreaterThanOrEqual(1));
    expect(count("lag Pod")).toBe(0);
    await eventually(() => expect(server.openWatches).toBe(allKinds.length - 1));
    server.apply(written("10.0.0.2", "2026-01-01T00:00:05Z"));
    await eventually(() => expect(c.pods.get("shop", "web-1")?.status?.podIP).toBe("10.0.0.2"));
    const seen = resyncs;
    await eventually(() => expect(resyncs).toBeGreaterThanOrEqual(seen + 2));
    expect(count("lag Pod")).toBe(1);
  });

  it("lists and watches one namespace into a caller's store (the multicluster Secrets seam)", async () => {
    const server = await fakeServer();
    server.apply(pod("mine", "10.0.0.1"));
    server.apply({
      ...pod("theirs", "10.0.0.2"),
      metadata: { name: "theirs", namespace: "other" },
    });
    const c = cluster(server);
    const store = new MemoryCache<KubeObject>("Pod");
    const watch = c.watchNamespaced(RESOURCE_KINDS.Pod, "shop", store);
    cleanup.push(() => watch.stop());
    await store.whenSynced();
    expect(store.list().map((o) => o.metadata.name)).toEqual(["mine"]);
    server.apply(pod("mine-2", "10.0.0.3"));
    server.apply({
      ...pod("theirs-2", "10.0.0.4"),
      metadata: { name: "theirs-2", namespace: "other" },
    });
    await eventually(() => expect(store.get("shop", "mine-2")).toBeDefined());
    expect(store.size).toBe(2);
    expect(server.requests.some((r) => r.path === "/api/v1/namespaces/shop/pods")).toBe(true);
  });
});

describe("cluster backend: pod owners", () => {
  it("reads a ReplicaSet missing from the cache from the API when asked to retry", async () => {
    const server = await fakeServer();
    const c = cluster(server);
    await c.start();
    await c.whenSynced();
    const orphan = pod("web-5d4f-x", "10.0.0.1", {
      ownerReferences: [{ kind: "ReplicaSet", name: "web-5d4f" }],
    });
    // Created while the caches cannot see it: only a direct read finds it.
    await server.disconnected(async () => {
      server.apply(replicaSet("web-5d4f", "web"));
      expect(c.replicaSets.get("shop", "web-5d4f")).toBeUndefined();
      expect(c.podOwner(orphan)).toEqual({ kind: "replicaset", name: "web-5d4f" });
      expect(await c.fetchPodOwner(orphan)).toEqual({ kind: "deployment", name: "web" });
    });
    const get = server.requests.find(
      (r) => r.path === "/apis/apps/v1/namespaces/shop/replicasets/web-5d4f",
    );
    expect(get?.accept).toContain("as=PartialObjectMetadata");
  });

  it("falls back to the ReplicaSet's name when the read fails, with a warning", async () => {
    const server = await fakeServer();
    const { logger, at } = recordingLogger();
    const c = cluster(server, { logger });
    await c.start();
    await c.whenSynced();
    const orphan = pod("web-5d4f-x", "10.0.0.1", {
      ownerReferences: [{ kind: "ReplicaSet", name: "gone" }],
    });
    expect(await c.fetchPodOwner(orphan)).toEqual({ kind: "replicaset", name: "gone" });
    expect(at("warn").join("\n")).toMatch(/reading ReplicaSet shop\/gone failed; using its name/);
  });
});
