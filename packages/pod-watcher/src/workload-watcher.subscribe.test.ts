import type { Owner, Pod } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { externalWorkload, NS, pod, replicaSet } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, settle, setup } from "../test/support/fixtures.js";
import { WorkloadLookupError } from "./workload-lookup-error.js";

const bare = (ip: string, port: number) => ({
  ip,
  port,
  pod: null,
  ew: null,
  owner: "",
  opaque: false,
});

describe("subscribe: finding the workload behind an ip:port", () => {
  it("finds a pod on the pod network by IP, whatever the port", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", replicaSet: "web-rs" }));
    const listener = new RecordingListener();
    const ip = await watcher.subscribe({ ip: "10.0.0.1", port: 4444 }, listener);
    expect(ip).toBe("10.0.0.1");
    expect(listener.views).toEqual([
      {
        ip: "10.0.0.1",
        port: 4444,
        pod: "web-1",
        ew: null,
        owner: "deployment/web",
        opaque: false,
      },
    ]);
  });

  it("finds a pod through a declared host port on its host IP, and only there", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(
      pod("web-1", {
        ip: "10.0.0.1",
        hostIp: "172.18.0.2",
        ports: [{ containerPort: 8080, hostPort: 9999 }],
        replicaSet: "web-rs",
      }),
    );
    const declared = new RecordingListener();
    const undeclared = new RecordingListener();
    await watcher.subscribe({ ip: "172.18.0.2", port: 9999 }, declared);
    await watcher.subscribe({ ip: "172.18.0.2", port: 8080 }, undeclared);
    expect(declared.views).toEqual([
      {
        ip: "172.18.0.2",
        port: 9999,
        pod: "web-1",
        ew: null,
        owner: "deployment/web",
        opaque: false,
      },
    ]);
    expect(undeclared.views).toEqual([bare("172.18.0.2", 8080)]);
  });

  it("prefers the pod network over a host port on the same IP", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("on-pod-net", { ip: "10.0.0.7" }));
    cluster.apply(
      pod("on-host", {
        ip: "10.9.9.9",
        hostIp: "10.0.0.7",
        ports: [{ containerPort: 80, hostPort: 80 }],
      }),
    );
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.7", port: 80 }, listener);
    expect(listener.views.map((v) => v.pod)).toEqual(["on-pod-net"]);
  });

  it("finds an ExternalWorkload by IP and declared port, owner kind as written, not lower-cased", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(
      externalWorkload("vm-1", {
        ip: "192.168.1.10",
        ports: [{ port: 8080 }],
        owner: { kind: "VirtualMachineSet", name: "vms" },
      }),
    );
    const declared = new RecordingListener();
    const undeclared = new RecordingListener();
    await watcher.subscribe({ ip: "192.168.1.10", port: 8080 }, declared);
    await watcher.subscribe({ ip: "192.168.1.10", port: 9090 }, undeclared);
    expect(declared.views).toEqual([
      {
        ip: "192.168.1.10",
        port: 8080,
        pod: null,
        ew: "vm-1",
        owner: "VirtualMachineSet/vms",
        opaque: false,
      },
    ]);
    expect(undeclared.views).toEqual([bare("192.168.1.10", 9090)]);
  });

  it("an IP with no workload is a bare endpoint that still gets its initial update", async () => {
    const { watcher } = await setup();
    const listener = new RecordingListener();
    expect(await watcher.subscribe({ ip: "10.1.2.3", port: 80 }, listener)).toBe("10.1.2.3");
    expect(listener.views).toEqual([bare("10.1.2.3", 80)]);
  });

  it("IPv6 targets are matched and answered in canonical form", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("v6", { ip: "fd00::1" }));
    const listener = new RecordingListener();
    const ip = await watcher.subscribe({ ip: "FD00:0:0::1", port: 80 }, listener);
    expect(ip).toBe("fd00::1");
    expect(listener.views.map((v) => [v.ip, v.pod])).toEqual([["fd00::1", "v6"]]);
  });

  it("two live pods on one pod IP fail with FAILED_PRECONDITION and the exact message", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("a", { ip: "10.0.0.1" }));
    cluster.apply(pod("b", { ip: "10.0.0.1" }));
    const error = await watcher
      .subscribe({ ip: "10.0.0.1", port: 80 }, new RecordingListener())
      .catch((e) => e);
    expect(error).toBeInstanceOf(WorkloadLookupError);
    expect(error.code).toBe("FAILED_PRECONDITION");
    expect(error.message).toBe("found 2 pods with a conflicting pod network IP 10.0.0.1");
  });

  it("two pods on one host endpoint fail with the exact host network message", async () => {
    const { cluster, watcher } = await setup();
    for (const name of ["a", "b", "c"]) {
      cluster.apply(
        pod(name, {
          ip: `10.0.0.${name.charCodeAt(0)}`,
          hostIp: "fd00::9",
          ports: [{ containerPort: 80, hostPort: 8080 }],
        }),
      );
    }
    const error = await watcher
      .subscribe({ ip: "fd00::9", port: 8080 }, new RecordingListener())
      .catch((e) => e);
    expect(error.code).toBe("FAILED_PRECONDITION");
    expect(error.message).toBe(
      "found 3 pods with a conflicting host network endpoint fd00::9:8080",
    );
  });

  it("two ExternalWorkloads on one ip:port fail with the exact message", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(externalWorkload("vm-1", { ip: "192.168.1.10" }));
    cluster.apply(externalWorkload("vm-2", { ip: "192.168.1.10" }));
    const error = await watcher
      .subscribe({ ip: "192.168.1.10", port: 8080 }, new RecordingListener())
      .catch((e) => e);
    expect(error.code).toBe("FAILED_PRECONDITION");
    expect(error.message).toBe("found 2 externalworkloads with a conflicting ip 192.168.1.10:8080");
  });

  it("terminating and finished pods are not looked up, so they do not conflict with the live one", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("done", { ip: "10.0.0.1", phase: "Succeeded" }));
    cluster.apply(pod("leaving", { ip: "10.0.0.1", deletionTimestamp: "2026-01-01T00:00:00Z" }));
    cluster.apply(pod("live", { ip: "10.0.0.1" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    expect(listener.views.map((v) => v.pod)).toEqual(["live"]);
  });

  it("a pod found but not Running gives a bare endpoint", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("starting", { ip: "10.0.0.1", phase: "Pending" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    expect(listener.views).toEqual([bare("10.0.0.1", 8080)]);
  });
});

describe("subscribe: publishers and listeners", () => {
  it("a failing initial update rejects and rolls the listener back", async () => {
    const { cluster, watcher, metrics } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", phase: "Pending" }));
    const kept = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, kept);
    let calls = 0;
    const failing = {
      update() {
        calls++;
        throw new Error("stream closed");
      },
    };
    const error = await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, failing).catch((e) => e);
    expect(error).toBeInstanceOf(WorkloadLookupError);
    expect(error.message).toBe("failed to send initial update: stream closed");
    expect(metrics.value("workload_subscribers")).toBe(1);
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(calls).toBe(1);
    expect(kept.views.map((v) => v.pod)).toEqual([null, "web-1"]);
  });

  it("a rejected first subscriber leaves no publisher behind", async () => {
    const { cluster, watcher } = await setup();
    const failing = {
      update() {
        throw new Error("no");
      },
    };
    await expect(watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, failing)).rejects.toThrow();
    // A leftover publisher would keep the bare state; a new one resolves the pod afresh.
    cluster.apply(pod("web-1", { ip: "10.0.0.1", phase: "Pending" }));
    cluster.apply(pod("web-2", { ip: "10.0.0.1", phase: "Pending" }));
    await expect(
      watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener()),
    ).rejects.toThrow("found 2 pods with a conflicting pod network IP 10.0.0.1");
  });

  it("a second subscriber reuses the publisher's state, not a fresh resolution", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", v: "1" } }));
    const first = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, first);
    // A running pod's edits are not picked up (as upstream): the publisher keeps the first object.
    cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", v: "2" } }));
    const second = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, second);
    expect(second.received.map((a) => a.pod?.metadata.labels?.v)).toEqual(["1"]);
    expect(first.received).toHaveLength(1);
  });

  it("resolution errors still fail a subscribe to an existing publisher", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener());
    cluster.apply(pod("web-2", { ip: "10.0.0.1" }));
    await expect(
      watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener()),
    ).rejects.toThrow("found 2 pods with a conflicting pod network IP 10.0.0.1");
  });

  it("unsubscribe stops the updates of that listener only", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    const leaving = new RecordingListener();
    const staying = new RecordingListener();
    const ip = await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, leaving);
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, staying);
    watcher.unsubscribe(ip, 8080, leaving);
    cluster.delete("Pod", NS, "web-1");
    expect(leaving.views.map((v) => v.pod)).toEqual(["web-1"]);
    expect(staying.views.map((v) => v.pod)).toEqual(["web-1", null]);
  });

  it("an event right after subscribe() is called reaches the listener after its initial update", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", phase: "Pending" }));
    const listener = new RecordingListener();
    const subscribed = watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    await subscribed;
    expect(listener.views.map((v) => v.pod)).toEqual([null, "web-1"]);
  });

  it("stop() removes the handlers: later events reach no listener", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    watcher.stop();
    cluster.delete("Pod", NS, "web-1");
    expect(listener.views.map((v) => v.pod)).toEqual(["web-1"]);
    await expect(watcher.subscribe({ ip: "10.0.0.1", port: 80 }, listener)).rejects.toThrow(
      "stopped",
    );
  });
});

/** A cluster whose owner fetches wait until the test releases them (an API round trip). */
class SlowOwnerCluster extends MemoryCluster {
  readonly fetches: { pod: Pod; resolve: (owner: Owner) => void; reject: (e: Error) => void }[] =
    [];

  override fetchPodOwner(pod: Pod): Promise<Owner> {
    return new Promise((resolve, reject) => this.fetches.push({ pod, resolve, reject }));
  }
}

describe("owner lookups on a metadata-cache miss", () => {
  it("subscribe fetches a missing owner first and sends it in the initial update", async () => {
    const cluster = new SlowOwnerCluster();
    const { watcher } = await setup({}, cluster);
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    const listener = new RecordingListener();
    const subscribed = watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    await settle();
    expect(listener.received).toHaveLength(0);
    expect(cluster.fetches.map((f) => f.pod.metadata.name)).toEqual(["api-1"]);
    cluster.fetches[0]?.resolve({ kind: "deployment", name: "api" });
    await subscribed;
    expect(listener.views.map((v) => [v.pod, v.owner])).toEqual([["api-1", "deployment/api"]]);
  });

  it("subscribe re-resolves after the fetch: a pod deleted meanwhile gives a bare endpoint", async () => {
    const cluster = new SlowOwnerCluster();
    const { watcher } = await setup({}, cluster);
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    const listener = new RecordingListener();
    const subscribed = watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    await settle();
    cluster.delete("Pod", NS, "api-1");
    cluster.fetches[0]?.resolve({ kind: "deployment", name: "api" });
    await subscribed;
    expect(listener.views).toEqual([bare("10.0.0.1", 8080)]);
  });

  it("a failed owner fetch falls back to the ReplicaSet name", async () => {
    const cluster = new SlowOwnerCluster();
    const { watcher } = await setup({}, cluster);
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    const listener = new RecordingListener();
    const subscribed = watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    await settle();
    cluster.fetches[0]?.reject(new Error("apiserver unavailable"));
    await subscribed;
    expect(listener.views.map((v) => v.owner)).toEqual(["replicaset/api-rs"]);
  });

  it("an event-driven attach waits for the owner fetch and is dropped if the pod stopped meanwhile", async () => {
    const cluster = new SlowOwnerCluster();
    const { watcher } = await setup({}, cluster);
    cluster.apply(pod("api-1", { ip: "10.0.0.1", phase: "Pending", replicaSet: "api-rs" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);

    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs", labels: { app: "x" } }));
    expect(cluster.fetches).toHaveLength(1);
    cluster.fetches[0]?.resolve({ kind: "deployment", name: "api" });
    await settle();
    // Attached with the newest object seen while waiting.
    expect(listener.received.map((a) => a.pod?.metadata.labels?.app ?? null)).toEqual([null, "x"]);
    expect(listener.views.at(-1)?.owner).toBe("deployment/api");

    cluster.delete("Pod", NS, "api-1");
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    cluster.apply(pod("api-1", { ip: "10.0.0.1", phase: "Failed", replicaSet: "api-rs" }));
    cluster.fetches[1]?.resolve({ kind: "deployment", name: "api" });
    await settle();
    expect(listener.views.map((v) => v.pod)).toEqual([null, "api-1", null]);
  });

  it("no owner fetch when the owner is cached", async () => {
    const cluster = new SlowOwnerCluster();
    const { watcher } = await setup({}, cluster);
    cluster.apply(replicaSet("api-rs", "api"));
    cluster.apply(pod("api-1", { ip: "10.0.0.1", replicaSet: "api-rs" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    expect(cluster.fetches).toHaveLength(0);
    expect(listener.views.map((v) => v.owner)).toEqual(["deployment/api"]);
  });
});
