import type { Logger } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { FakeKubeApi } from "../test/support/fake-kube-api.js";
import { service, workload } from "../test/support/objects.js";
import { ExternalWorkloadController } from "./external-workload-controller.js";
import { LEASE_NAME, MANAGED_BY } from "./upstream-constants.js";

// Short Lease timings keep the tests quick; the rules are the same as with upstream's.
const LEASE = { durationMs: 800, renewDeadlineMs: 400, retryPeriodMs: 40 };

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

function recordingLogger() {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger: Logger = {
    debug: () => {},
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
  return { logger, lines };
}

function setup() {
  const cluster = new MemoryCluster({ keepVersions: true });
  const api = new FakeKubeApi(cluster);
  const controller = (
    hostname: string,
    extra: { metrics?: InMemoryMetrics; exportQueueMetrics?: boolean; logger?: Logger } = {},
  ) => {
    const created = new ExternalWorkloadController({
      cluster,
      api: api.client(hostname),
      hostname,
      controllerNamespace: "linkerd",
      lease: LEASE,
      ...extra,
    });
    stops.push(() => created.stop());
    return created;
  };
  return { cluster, api, controller };
}

const slicesOf = (api: FakeKubeApi, svc: string) =>
  api.slices().filter((s) => s.metadata.labels?.["kubernetes.io/service-name"] === svc);

describe("ExternalWorkloadController", () => {
  it("writes a slice for a Service that selects a workload once it holds the Lease, and nothing more", async () => {
    const { cluster, api, controller } = setup();
    const c = controller("pod-a");
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1", { ips: ["10.0.0.1"] }));
    c.start();
    await eventually(() => expect(slicesOf(api, "web")).toHaveLength(1));
    const [slice] = slicesOf(api, "web");
    expect(slice?.metadata.labels?.["endpointslice.kubernetes.io/managed-by"]).toBe(MANAGED_BY);
    expect(slice?.endpoints?.map((e) => e.addresses)).toEqual([["10.0.0.1"]]);
    expect(
      api.objects.get(`/apis/coordination.k8s.io/v1/namespaces/linkerd/leases/${LEASE_NAME}`),
    ).toMatchObject({
      spec: { holderIdentity: "pod-a", leaseDurationSeconds: 1 },
    });
    // The cache's echo of its own write starts no sync that writes again.
    await eventually(() => expect(cluster.endpointSlices.size).toBe(1));
    const sliceWrites = () => api.writes.filter((w) => w.path.includes("endpointslices")).length;
    const before = sliceWrites();
    cluster.apply({
      ...service("web"),
      metadata: { ...service("web").metadata, resourceVersion: "2" },
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(sliceWrites()).toBe(before);
  });

  it("keeps the slice current as the workload changes, and deletes it when the workload goes", async () => {
    const { cluster, api, controller } = setup();
    controller("pod-a").start();
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1", { ips: ["10.0.0.1"], resourceVersion: "1" }));
    await eventually(() =>
      expect(slicesOf(api, "web")[0]?.endpoints?.[0]?.conditions?.ready).toBe(true),
    );
    cluster.apply(workload("ew-1", { ips: ["10.0.0.1"], ready: false, resourceVersion: "2" }));
    await eventually(() =>
      expect(slicesOf(api, "web")[0]?.endpoints?.[0]?.conditions?.ready).toBe(false),
    );
    cluster.apply(workload("ew-1", { ips: ["10.0.0.7"], ready: false, resourceVersion: "3" }));
    await eventually(() =>
      expect(slicesOf(api, "web")[0]?.endpoints?.[0]?.addresses).toEqual(["10.0.0.7"]),
    );
    cluster.delete("ExternalWorkload", "ns", "ew-1");
    await eventually(() => expect(slicesOf(api, "web")).toHaveLength(0));
  });

  it("moves a workload between Services when its labels change", async () => {
    const { cluster, api, controller } = setup();
    controller("pod-a").start();
    cluster.apply(service("blue", { selector: { colour: "blue" } }));
    cluster.apply(service("green", { selector: { colour: "green" } }));
    cluster.apply(workload("ew-1", { labels: { colour: "blue" }, resourceVersion: "1" }));
    await eventually(() => expect(slicesOf(api, "blue")).toHaveLength(1));
    cluster.apply(workload("ew-1", { labels: { colour: "green" }, resourceVersion: "2" }));
    await eventually(() => {
      expect(slicesOf(api, "blue")).toHaveLength(0);
      expect(slicesOf(api, "green")).toHaveLength(1);
    });
  });

  it("writes nothing for ExternalName Services, Services without a selector, or kube-system", async () => {
    const { cluster, api, controller } = setup();
    controller("pod-a").start();
    cluster.apply(service("ext", { type: "ExternalName" }));
    cluster.apply(service("manual", { selector: null }));
    cluster.apply(service("dns", { namespace: "kube-system" }));
    cluster.apply(workload("ew-sys", { namespace: "kube-system" }));
    cluster.apply(workload("ew-1"));
    // A marker Service that is written proves the others were looked at.
    cluster.apply(service("marker"));
    await eventually(() => expect(slicesOf(api, "marker")).toHaveLength(1));
    expect(api.slices().map((s) => s.metadata.labels?.["kubernetes.io/service-name"])).toEqual([
      "marker",
    ]);
  });

  it("writes the slice again when someone else deletes it", async () => {
    const { cluster, api, controller } = setup();
    controller("pod-a").start();
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1"));
    await eventually(() => expect(cluster.endpointSlices.size).toBe(1));
    const [first] = slicesOf(api, "web");
    const path = `/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices/${first?.metadata.name}`;
    await api.client("someone").json({ method: "DELETE", path });
    await eventually(() => {
      const [again] = slicesOf(api, "web");
      expect(again?.metadata.name).toBeDefined();
      expect(again?.metadata.name).not.toBe(first?.metadata.name);
    });
  });

  it("puts back a slice someone else edited", async () => {
    const { cluster, api, controller } = setup();
    controller("pod-a").start();
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1", { ips: ["10.0.0.1"] }));
    await eventually(() => expect(cluster.endpointSlices.size).toBe(1));
    const [slice] = slicesOf(api, "web");
    const path = `/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices/${slice?.metadata.name}`;
    await api.client("someone").json({ method: "PUT", path, body: { ...slice, endpoints: [] } });
    await eventually(() => {
      const [now] = slicesOf(api, "web");
      expect(now?.metadata.name).toBe(slice?.metadata.name);
      expect(now?.endpoints?.map((e) => e.addresses)).toEqual([["10.0.0.1"]]);
      expect(now?.metadata.generation).toBeGreaterThan(2);
    });
  });

  it("lets only the Lease holder write, and logs who acquired it", async () => {
    const { cluster, api, controller } = setup();
    const logA = recordingLogger();
    const logB = recordingLogger();
    const a = controller("pod-a", { logger: logA.logger });
    const b = controller("pod-b", { logger: logB.logger });
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1"));
    a.start();
    b.start();
    await eventually(() => expect(slicesOf(api, "web")).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 300));
    expect([a.isLeading, b.isLeading].filter(Boolean)).toHaveLength(1);
    const leader = a.isLeading ? "pod-a" : "pod-b";
    const sliceWriters = new Set(
      api.writes.filter((w) => w.path.includes("endpointslices")).map((w) => w.client),
    );
    expect([...sliceWriters]).toEqual([leader]);
    const leaderLog = a.isLeading ? logA : logB;
    expect(leaderLog.lines).toContain(`info ${leader} acquired lease`);
    expect(slicesOf(api, "web")).toHaveLength(1);
  });

  it("hands over at once when the holder stops and releases, and only after expiry when it dies", async () => {
    const { cluster, api, controller } = setup();
    cluster.apply(service("web"));
    const a = controller("pod-a");
    a.start();
    await eventually(() => expect(a.isLeading).toBe(true));
    const b = controller("pod-b");
    b.start();
    await a.stop();
    const released = Date.now();
    await eventually(() => expect(b.isLeading).toBe(true));
    expect(Date.now() - released).toBeLessThan(LEASE.durationMs);

    const c = controller("pod-c");
    c.start();
    await b.stop({ releaseLease: false });
    const died = Date.now();
    await eventually(() => expect(c.isLeading).toBe(true));
    expect(Date.now() - died).toBeGreaterThanOrEqual(LEASE.durationMs - 100);
    cluster.apply(workload("ew-1"));
    await eventually(() => expect(slicesOf(api, "web")).toHaveLength(1));
    expect(
      api.writes.filter((w) => w.path.includes("endpointslices")).map((w) => w.client),
    ).toEqual(["pod-c"]);
  });

  it("exports upstream's queue metrics unless -export-queue-metrics=false", async () => {
    const { cluster, api, controller } = setup();
    const on = new InMemoryMetrics();
    const off = new InMemoryMetrics();
    controller("pod-a", { metrics: on }).start();
    controller("pod-b", { metrics: off, exportQueueMetrics: false });
    cluster.apply(service("web"));
    cluster.apply(workload("ew-1"));
    await eventually(() => expect(slicesOf(api, "web")).toHaveLength(1));
    const name = { name: "endpoints_controller_workqueue" };
    expect(on.value("workqueue_adds_total", name)).toBeGreaterThan(0);
    expect(on.value("workqueue_drops_total", name)).toBe(0);
    expect(off.series("workqueue_adds_total").size).toBe(0);
  });
});
