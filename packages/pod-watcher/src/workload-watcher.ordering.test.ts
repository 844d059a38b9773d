import { MemoryCluster } from "@destination/k8s-discovery";
import { NS, pod, replicaSet, server } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, settle, setup } from "../test/support/fixtures.js";

describe("event ordering: a subscription ends up with what the cluster holds, in any order", () => {
  it("a pod cached after the subscription on its IP is attached when it arrives", async () => {
    const { cluster, watcher } = await setup();
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.7", port: 8080 }, listener);
    cluster.apply(pod("web-7", { ip: "10.0.0.7", replicaSet: "web-rs" }));
    await settle();
    expect(listener.views).toEqual([
      { ip: "10.0.0.7", port: 8080, pod: null, ew: null, owner: "", opaque: false },
      {
        ip: "10.0.0.7",
        port: 8080,
        pod: "web-7",
        ew: null,
        owner: "deployment/web",
        opaque: false,
      },
    ]);
  });

  it("a ReplicaSet cached after its pod corrects the owner to the Deployment", async () => {
    // No ReplicaSet in the cache yet: the owner falls back to the ReplicaSet's name.
    const { cluster, watcher } = await setup({}, new MemoryCluster());
    cluster.delete("ReplicaSet", NS, "web-rs");
    cluster.apply(pod("web-1", { ip: "10.0.0.1", replicaSet: "late-rs" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    await settle();
    cluster.apply(replicaSet("late-rs", "late"));
    // A later update of the ReplicaSet that keeps its owner (its status) announces nothing.
    cluster.apply({ ...replicaSet("late-rs", "late"), status: { replicas: 3 } });
    expect(listener.views.map((v) => v.owner)).toEqual(["replicaset/late-rs", "deployment/late"]);
  });

  it("a ReplicaSet of another pod changes nothing for this one", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1", replicaSet: "web-rs" }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(replicaSet("other-rs", "other"));
    expect(listener.views.map((v) => v.owner)).toEqual(["deployment/web"]);
  });

  it("a Server cached before or after the pod gives the same flag", async () => {
    const before = await setup();
    before.cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));
    const first = new RecordingListener();
    await before.watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, first);
    before.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));

    const after = await setup();
    const last = new RecordingListener();
    await after.watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, last);
    after.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    after.cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));

    expect(first.views.map((v) => [v.pod, v.opaque])).toEqual([
      [null, false],
      ["web-1", true],
    ]);
    expect(last.views.map((v) => [v.pod, v.opaque])).toEqual([
      [null, false],
      ["web-1", false],
      ["web-1", true],
    ]);
  });

  it("a host-port pod whose node IP is only known once it is scheduled is attached then", async () => {
    const { cluster, watcher } = await setup();
    const hostPorts = [{ containerPort: 8080, hostPort: 30080 }];
    cluster.apply(pod("edge-1", { ip: "10.0.0.5", phase: "Pending", ports: hostPorts }));
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "192.168.0.2", port: 30080 }, listener);
    cluster.apply(pod("edge-1", { ip: "10.0.0.5", hostIp: "192.168.0.2", ports: hostPorts }));
    expect(listener.views.map((v) => [v.ip, v.port, v.pod])).toEqual([
      ["192.168.0.2", 30080, null],
      ["192.168.0.2", 30080, "edge-1"],
    ]);
  });

  it("a pod deleted and re-created under the same name and IP is detached, then attached anew", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply({
      ...pod("db-0", { ip: "10.0.0.3" }),
      metadata: { ...pod("db-0").metadata, uid: "a" },
    });
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.3", port: 8080 }, listener);
    cluster.delete("Pod", NS, "db-0");
    const recreated = pod("db-0", { ip: "10.0.0.3", labels: { app: "web", rev: "2" } });
    cluster.apply({ ...recreated, metadata: { ...recreated.metadata, uid: "b" } });
    expect(listener.received.map((a) => a.pod?.metadata.uid ?? null)).toEqual(["a", null, "b"]);
  });
});
