import type { EndpointSlice } from "@destination/core";
import { NS, pod, server } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, setup } from "../test/support/fixtures.js";

const DELETED_AT = "2026-01-01T00:00:00Z";

describe("pod events", () => {
  it("the update that only marks a pod for deletion is ignored; the delete detaches", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    // Even a phase that would detach is ignored when it arrives with the deletion mark.
    cluster.apply(
      pod("web-1", { ip: "10.0.0.1", phase: "Succeeded", deletionTimestamp: DELETED_AT }),
    );
    expect(listener.views.map((v) => v.pod)).toEqual(["web-1"]);
    cluster.delete("Pod", NS, "web-1");
    expect(listener.views.map((v) => v.pod)).toEqual(["web-1", null]);
  });

  it("ports declared by init containers route events too", async () => {
    const { cluster, watcher } = await setup();
    const sidecar = (phase: string) =>
      pod("web-1", {
        ip: "10.0.0.1",
        hostIp: "172.18.0.2",
        phase,
        ports: [],
        initPorts: [{ containerPort: 4191, hostPort: 14191 }],
      });
    cluster.apply(sidecar("Pending"));
    const onHost = new RecordingListener();
    await watcher.subscribe({ ip: "172.18.0.2", port: 14191 }, onHost);
    cluster.apply(sidecar("Running"));
    expect(onHost.views.map((v) => [v.ip, v.port, v.pod])).toEqual([
      ["172.18.0.2", 14191, null],
      ["172.18.0.2", 14191, "web-1"],
    ]);
  });

  it("host-IP events reach only declared host ports", async () => {
    const { cluster, watcher } = await setup();
    const other = new RecordingListener();
    const declared = new RecordingListener();
    await watcher.subscribe({ ip: "172.18.0.2", port: 9999 }, other);
    await watcher.subscribe({ ip: "172.18.0.2", port: 8443 }, declared);
    cluster.apply(
      pod("web-1", {
        ip: "10.0.0.1",
        hostIp: "172.18.0.2",
        ports: [{ containerPort: 443, hostPort: 8443 }],
      }),
    );
    expect(other.views.map((v) => v.pod)).toEqual([null]);
    expect(declared.views.map((v) => v.pod)).toEqual([null, "web-1"]);
  });

  it("a subscription on a port the pod does not declare sees it stop, go and come back", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", ports: [{ containerPort: 8080 }] }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 9999 }, listener);
    cluster.apply(
      pod("web-1", { ip: "10.0.0.1", phase: "Failed", ports: [{ containerPort: 8080 }] }),
    );
    cluster.delete("Pod", NS, "web-1");
    cluster.apply(pod("web-2", { ip: "10.0.0.1", ports: [{ containerPort: 8080 }] }));
    expect(listener.views.map((v) => [v.port, v.pod])).toEqual([
      [9999, "web-1"],
      [9999, null],
      [9999, "web-2"],
    ]);
  });

  it("a host-network pod does not reach other ports of its node's IP", async () => {
    const { cluster, watcher } = await setup();
    const node = "172.18.0.2";
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: node, port: 10250 }, listener);
    cluster.apply(
      pod("agent", {
        ip: node,
        hostIp: node,
        hostNetwork: true,
        ports: [{ containerPort: 9100, hostPort: 9100 }],
      }),
    );
    expect(listener.views.map((v) => v.pod)).toEqual([null]);
  });

  it("attaches and detaches only when the running state changes", async () => {
    const { cluster, watcher } = await setup();
    const web = (phase: string, labels: Record<string, string> = { app: "web" }) =>
      pod("web-1", { ip: "10.0.0.1", phase, labels, replicaSet: "web-rs" });
    cluster.apply(web("Pending"));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(web("Pending", { app: "web", step: "1" })); // still not running
    cluster.apply(web("Running")); // attach
    cluster.apply(web("Running", { app: "web", step: "2" })); // running edit: ignored, as upstream
    cluster.resync(); // update(obj, obj): nothing observable
    cluster.apply(web("Succeeded")); // detach
    cluster.apply(web("Succeeded", { app: "web", step: "3" })); // still not running
    expect(listener.views).toEqual([
      { ip: "10.0.0.1", port: 8080, pod: null, ew: null, owner: "", opaque: false },
      {
        ip: "10.0.0.1",
        port: 8080,
        pod: "web-1",
        ew: null,
        owner: "deployment/web",
        opaque: false,
      },
      { ip: "10.0.0.1", port: 8080, pod: null, ew: null, owner: "", opaque: false },
    ]);
  });

  it("an attach computes the Server flag and a detach clears it", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));
    cluster.apply(pod("web-1", { ip: "10.0.0.1", phase: "Pending" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    cluster.delete("Pod", NS, "web-1");
    expect(listener.views.map((v) => [v.pod, v.opaque])).toEqual([
      [null, false],
      ["web-1", true],
      [null, false],
    ]);
  });

  it("an event about another pod with the same IP never detaches the attached one", async () => {
    const { cluster, watcher } = await setup();
    // A finished Job pod keeps the IP in its status after the IP went to a new pod.
    cluster.apply(pod("job-old", { ip: "10.0.0.1", phase: "Succeeded" }));
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(pod("job-old", { ip: "10.0.0.1", phase: "Succeeded", labels: { gc: "soon" } }));
    cluster.delete("Pod", NS, "job-old");
    expect(listener.views.map((v) => v.pod)).toEqual(["web-1"]);
  });

  it("a host-port pod deleted and recreated gives exactly two notifications per restart", async () => {
    const { cluster, watcher } = await setup();
    const hostPortPod = (name: string, phase: string, ip = "", deletionTimestamp?: string) =>
      pod(name, {
        ip,
        phase,
        hostIp: "172.17.0.2",
        ports: [{ containerPort: 80, hostPort: 9999 }],
        replicaSet: "web-rs",
        ...(deletionTimestamp ? { deletionTimestamp } : {}),
      });
    cluster.apply(hostPortPod("web-5tj4r", "Running", "10.42.0.7"));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "172.17.0.2", port: 9999 }, listener);

    for (const [old, next, ip] of [
      ["web-5tj4r", "web-6ngm2", "10.42.0.8"],
      ["web-6ngm2", "web-gnd6w", "10.42.0.9"],
    ] as const) {
      const before = listener.received.length;
      const oldIp = listener.received.at(-1)?.pod?.status?.podIP;
      cluster.apply(hostPortPod(old, "Running", oldIp, DELETED_AT));
      cluster.delete("Pod", NS, old);
      cluster.apply(hostPortPod(next, "Pending"));
      cluster.apply(hostPortPod(next, "Pending", ip));
      cluster.apply(hostPortPod(next, "Running", ip));
      expect(listener.views.slice(before)).toEqual([
        { ip: "172.17.0.2", port: 9999, pod: null, ew: null, owner: "", opaque: false },
        {
          ip: "172.17.0.2",
          port: 9999,
          pod: next,
          ew: null,
          owner: "deployment/web",
          opaque: false,
        },
      ]);
    }
    expect(listener.received).toHaveLength(5);
  });

  it("a host-port pod replaced with the new pod's add before the old one's delete ends at the new pod", async () => {
    // One manifests folder change applies the new pod, then deletes the old: the new pod sends
    // no later event, so the delete must hand the address over.
    const { cluster, watcher } = await setup();
    const hostPortPod = (name: string, ip: string) =>
      pod(name, {
        ip,
        hostIp: "172.17.0.2",
        ports: [{ containerPort: 80, hostPort: 9999 }],
        replicaSet: "web-rs",
      });
    cluster.apply(hostPortPod("web-old", "10.42.0.7"));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "172.17.0.2", port: 9999 }, listener);
    cluster.apply(hostPortPod("web-new", "10.42.0.8"));
    cluster.delete("Pod", NS, "web-old");
    expect(listener.views.map((v) => [v.pod, v.owner])).toEqual([
      ["web-old", "deployment/web"],
      [null, ""],
      ["web-new", "deployment/web"],
    ]);
  });

  it("a pod that stops while two others claim its address stays detached (a conflict)", async () => {
    const { cluster, watcher } = await setup();
    const hostPortPod = (name: string, ip: string, phase = "Running") =>
      pod(name, {
        ip,
        phase,
        hostIp: "172.17.0.2",
        ports: [{ containerPort: 80, hostPort: 9999 }],
      });
    cluster.apply(hostPortPod("web-1", "10.42.0.7"));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "172.17.0.2", port: 9999 }, listener);
    cluster.apply(hostPortPod("web-2", "10.42.0.8"));
    cluster.apply(hostPortPod("web-3", "10.42.0.9"));
    cluster.delete("Pod", NS, "web-1");
    expect(listener.views.map((v) => v.pod)).toEqual(["web-1", null]);
  });

  it("a pod IP reused by a new pod detaches the old pod and attaches the new one", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", replicaSet: "web-rs" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(
      pod("web-1", { ip: "10.0.0.1", replicaSet: "web-rs", deletionTimestamp: DELETED_AT }),
    );
    cluster.delete("Pod", NS, "web-1");
    cluster.apply(pod("db-1", { ip: "10.0.0.1", phase: "Pending", labels: { app: "db" } }));
    cluster.apply(pod("db-1", { ip: "10.0.0.1", labels: { app: "db" } }));
    expect(listener.views.map((v) => [v.pod, v.owner])).toEqual([
      ["web-1", "deployment/web"],
      [null, ""],
      ["db-1", "pod/db-1"],
    ]);
  });

  it("a hostname subscription follows its pod by IP afterwards", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("db-0", { ip: "10.0.0.10", ports: [{ containerPort: 5432 }] }));
    const slice: EndpointSlice = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "db-x", namespace: NS, labels: { "kubernetes.io/service-name": "db" } },
      addressType: "IPv4",
      endpoints: [
        {
          addresses: ["10.0.0.10"],
          hostname: "db-0",
          targetRef: { kind: "Pod", namespace: NS, name: "db-0" },
        },
      ],
    };
    cluster.apply(slice);
    const listener = new RecordingListener();
    const ip = await watcher.subscribe(
      { ip: "", port: 5432, hostname: "db-0", service: { namespace: NS, name: "db" } },
      listener,
    );
    cluster.delete("Pod", NS, "db-0");
    watcher.unsubscribe(ip, 5432, listener);
    cluster.apply(pod("db-0", { ip: "10.0.0.10", ports: [{ containerPort: 5432 }] }));
    expect(listener.views.map((v) => v.pod)).toEqual(["db-0", null]);
  });

  it("every listener gets its own address, and a sent address never changes later", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    const a = new RecordingListener();
    const b = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, a);
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, b);
    cluster.delete("Pod", NS, "web-1");
    expect(a.received[1]).not.toBe(b.received[1]);
    expect(a.received[0]?.pod?.metadata.name).toBe("web-1");
    expect(a.received[1]?.pod).toBeNull();
  });

  it("a throwing listener is logged and the others still get the update", async () => {
    const warnings: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (m: string) => void warnings.push(m),
    };
    const { cluster, watcher } = await setup({ logger });
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    let first = true;
    const flaky = {
      update() {
        if (first) first = false;
        else throw new Error("queue full");
      },
    };
    const healthy = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, flaky);
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, healthy);
    cluster.delete("Pod", NS, "web-1");
    expect(healthy.views.map((v) => v.pod)).toEqual(["web-1", null]);
    expect(warnings).toEqual(["error sending update to workload listener"]);
  });
});
