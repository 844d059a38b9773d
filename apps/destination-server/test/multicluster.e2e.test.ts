import type { Secret, Service } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { get, ipv4 } from "@destination/test-support/server";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import type { RemoteClusterFactory } from "../src/index.js";
import { serverPerTest } from "./support/server-per-test.js";

// Remote discovery, federated Services and the cluster store: README "Multicluster".

const NS = "emojivoto";
const REMOTE_LABEL = "multicluster.linkerd.io/remote-discovery";
const REMOTE_SERVICE_LABEL = "multicluster.linkerd.io/remote-service";

const startServer = serverPerTest();

function labelled(svc: Service, labels: Record<string, string>): Service {
  return { ...svc, metadata: { ...svc.metadata, labels } };
}

function linkSecret(cluster: string, kubeconfig: string, name = `cluster-credentials-${cluster}`) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "mirror.linkerd.io/remote-kubeconfig",
    metadata: {
      name,
      namespace: "linkerd",
      labels: { "multicluster.linkerd.io/cluster-name": cluster },
      annotations: {
        "multicluster.linkerd.io/cluster-domain": "east.local",
        "multicluster.linkerd.io/trust-domain": "east.example",
      },
    },
    data: { kubeconfig: Buffer.from(kubeconfig).toString("base64") },
  } satisfies Secret;
}

/** A remote cluster serving `web-svc` (Local traffic policy, pod on another node) from `ip`. */
function eastCluster(name: string, ip: string): MemoryCluster {
  const east = new MemoryCluster({ name });
  const web = service("web-svc", {
    namespace: NS,
    ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
  });
  east.apply({ ...web, spec: { ...web.spec, internalTrafficPolicy: "Local" } });
  east.apply(
    service("ext", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }], type: "ExternalName" }),
  );
  east.apply(replicaSet("web-5f86686c4d", "web", { namespace: NS }));
  east.apply(
    pod("web-east", {
      ...CLUSTER_POD,
      namespace: NS,
      ip,
      labels: { "pod-template-hash": "5f86686c4d" },
      replicaSet: "web-5f86686c4d",
      nodeName: "east-node",
      serviceAccountName: "web",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  );
  east.apply(
    slice("web-svc-east", "web-svc", [podEndpoint("web-east", ip, { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
  );
  return east;
}

/** The remote pod as a Get sends it: the remote trust domain, the local controller namespace. */
function eastAddr(ip: string) {
  const identity = "web.emojivoto.serviceaccount.identity.linkerd.east.example";
  return {
    addr: { ip: { ipv4: ipv4(ip) }, port: 8080 },
    weight: 10000,
    metricLabels: {
      control_plane_ns: "linkerd",
      deployment: "web",
      pod: "web-east",
      pod_template_hash: "5f86686c4d",
      serviceaccount: "web",
      zone: "",
      zone_locality: "unknown",
    },
    tlsIdentity: { dnsLikeIdentity: { name: identity }, serverName: { name: identity } },
    protocolHint: { h2: {} },
  };
}

/** Maps a link Secret's kubeconfig text (`<name> <ip>`) to an in-memory remote cluster. */
function recordingFactory() {
  const made: { name: string; kubeconfig: string; cluster: MemoryCluster; stopped: boolean }[] = [];
  const factory: RemoteClusterFactory = (name, kubeconfig) => {
    const cluster = eastCluster(name, kubeconfig.split(" ")[1] ?? "");
    const entry = { name, kubeconfig, cluster, stopped: false };
    cluster.stop = async () => {
      entry.stopped = true;
    };
    made.push(entry);
    return cluster;
  };
  return { made, factory };
}

function localCluster(): MemoryCluster {
  const local = new MemoryCluster();
  local.apply(
    labelled(service("web-remote", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }), {
      [REMOTE_LABEL]: "east",
      [REMOTE_SERVICE_LABEL]: "web-svc",
    }),
  );
  local.apply(
    labelled(service("no-name", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }), {
      [REMOTE_LABEL]: "east",
    }),
  );
  local.apply(
    labelled(service("lost", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }), {
      [REMOTE_LABEL]: "west",
      [REMOTE_SERVICE_LABEL]: "web-svc",
    }),
  );
  local.apply(
    labelled(service("ext-remote", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }), {
      [REMOTE_LABEL]: "east",
      [REMOTE_SERVICE_LABEL]: "ext",
    }),
  );
  local.apply(
    service("web-local", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
    }),
  );
  local.apply(
    pod("web-local-1", {
      ...CLUSTER_POD,
      namespace: NS,
      ip: "10.1.0.1",
      labels: {},
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  );
  local.apply(
    slice("web-local-1", "web-local", [podEndpoint("web-local-1", "10.1.0.1", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
  );
  local.apply(linkSecret("east", "east 10.2.0.1"));
  return local;
}

const localAddr = {
  addr: { ip: { ipv4: ipv4("10.1.0.1") }, port: 8080 },
  weight: 10000,
  metricLabels: {
    control_plane_ns: "linkerd",
    pod: "web-local-1",
    serviceaccount: "default",
    zone: "",
    zone_locality: "unknown",
  },
  tlsIdentity: {
    dnsLikeIdentity: { name: "default.emojivoto.serviceaccount.identity.linkerd.cluster.local" },
    serverName: { name: "default.emojivoto.serviceaccount.identity.linkerd.cluster.local" },
  },
  protocolHint: { h2: {} },
};

describe("Get: remote discovery", () => {
  it("serves the remote service's endpoints with the remote trust domain and no filtering", async () => {
    const { factory } = recordingFactory();
    const server = await startServer({ cluster: localCluster(), remoteClusterFactory: factory });
    const token = JSON.stringify({ ns: NS, nodeName: "node-a" });
    const stream = get(server.client, "web-remote.emojivoto.svc.cluster.local:80", token);
    expect(await stream.next()).toEqual({
      add: {
        addrs: [eastAddr("10.2.0.1")],
        metricLabels: { namespace: "emojivoto", service: "web-svc" },
      },
    });
    // The remote watcher labels its series with the remote cluster's name.
    await server.waitForMetric(
      "endpoints_subscribers",
      { cluster: "east", namespace: NS, service: "web-svc", port: "80" },
      1,
    );
    stream.cancel();
  });

  it("refuses a missing remote service name, an unknown cluster and a remote ExternalName", async () => {
    const { factory } = recordingFactory();
    const server = await startServer({ cluster: localCluster(), remoteClusterFactory: factory });
    expect(await get(server.client, "no-name.emojivoto.svc.cluster.local:80").end).toEqual({
      code: status.FAILED_PRECONDITION,
      details:
        "Remote discovery service missing remote service name no-name.emojivoto.svc.cluster.local:80",
    });
    expect(await get(server.client, "lost.emojivoto.svc.cluster.local:80").end).toEqual({
      code: status.NOT_FOUND,
      details: "Remote cluster not found: west",
    });
    expect(await get(server.client, "ext-remote.emojivoto.svc.cluster.local:80").end).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "Invalid authority: ext-remote.emojivoto.svc.cluster.local:80",
    });
  });
});

describe("Get: remote cluster lifecycles", () => {
  const path = "web-remote.emojivoto.svc.cluster.local:80";
  const served = {
    metricLabels: { namespace: "emojivoto", service: "web-svc" },
  };

  it("a stream on a cluster that is unlinked ends with OK after what it was sent", async () => {
    const local = localCluster();
    const server = await startServer({
      cluster: local,
      remoteClusterFactory: recordingFactory().factory,
    });
    const stream = get(server.client, path);
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.1")], ...served } });

    local.delete("Secret", "linkerd", "cluster-credentials-east");
    expect(await stream.end).toEqual({ code: status.OK, details: "" });
    expect(stream.unread).toBe(0);
    // The proxy resolves again and hears that the cluster is gone.
    expect(await get(server.client, path).end).toEqual({
      code: status.NOT_FOUND,
      details: "Remote cluster not found: east",
    });
    await server.waitForMetric(
      "endpoints_subscribers",
      { cluster: "east", namespace: NS, service: "web-svc", port: "80" },
      undefined,
    );
  });

  it("a stream on a relinked cluster ends with OK; the next one is served by the new cluster", async () => {
    const local = localCluster();
    const { made, factory } = recordingFactory();
    const server = await startServer({ cluster: local, remoteClusterFactory: factory });
    const first = get(server.client, path);
    expect(await first.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.1")], ...served } });

    local.apply(linkSecret("east", "east 10.2.0.2", "east-rotated"));
    expect(await first.end).toEqual({ code: status.OK, details: "" });
    expect(first.unread).toBe(0);
    const second = get(server.client, path);
    expect(await second.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.2")], ...served } });

    // The replaced Secret goes: the new one still links east, so the stream stays. The third
    // stream's first message comes after anything the server did on the deletion.
    local.delete("Secret", "linkerd", "cluster-credentials-east");
    const third = get(server.client, path);
    expect(await third.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.2")], ...served } });
    expect(second.ended).toBeUndefined();
    expect(made.map((m) => [m.kubeconfig, m.stopped])).toEqual([
      ["east 10.2.0.1", true],
      ["east 10.2.0.2", false],
    ]);

    local.delete("Secret", "linkerd", "east-rotated");
    expect(await second.end).toEqual({ code: status.OK, details: "" });
    expect(await third.end).toEqual({ code: status.OK, details: "" });
    expect([second.unread, third.unread]).toEqual([0, 0]);
  });
});

describe("cluster store", () => {
  it("adds a linked cluster, replaces it and stops the old one, and drops it on delete", async () => {
    const { made, factory } = recordingFactory();
    const local = localCluster();
    local.apply({
      ...linkSecret("east", "x"),
      type: "Opaque",
      metadata: { name: "other", namespace: "linkerd" },
    });
    const server = await startServer({ cluster: local, remoteClusterFactory: factory });
    expect(await server.metric("cluster_store_size")).toBe(1);
    expect(made.map((m) => m.kubeconfig)).toEqual(["east 10.2.0.1"]);

    // A second Secret for the same cluster replaces the entry; the old one is stopped.
    local.apply(linkSecret("east", "east 10.2.0.2", "east-rotated"));
    expect(made.map((m) => [m.kubeconfig, m.stopped])).toEqual([
      ["east 10.2.0.1", true],
      ["east 10.2.0.2", false],
    ]);
    expect(await server.metric("cluster_store_size")).toBe(1);
    const stream = get(server.client, "web-remote.emojivoto.svc.cluster.local:80");
    expect(await stream.next()).toEqual({
      add: {
        addrs: [eastAddr("10.2.0.2")],
        metricLabels: { namespace: "emojivoto", service: "web-svc" },
      },
    });
    stream.cancel();

    local.delete("Secret", "linkerd", "east-rotated");
    expect(made[1]?.stopped).toBe(true);
    expect(await server.metric("cluster_store_size")).toBe(0);
    expect(await get(server.client, "web-remote.emojivoto.svc.cluster.local:80").end).toEqual({
      code: status.NOT_FOUND,
      details: "Remote cluster not found: east",
    });
  });
});

describe("Get: federated services", () => {
  const federated = (annotations: Record<string, string>) =>
    service("web-fed", {
      namespace: NS,
      ports: [{ port: 80, protocol: "TCP" }],
      annotations: annotations,
    });

  it("fails while the federated-service watcher has not seen the Service", async () => {
    const local = localCluster();
    // Applied before the server's watchers exist, so only the cache knows it.
    local.apply(federated({ "multicluster.linkerd.io/local-discovery": "web-local" }));
    const server = await startServer({
      cluster: local,
      remoteClusterFactory: recordingFactory().factory,
    });
    expect(await get(server.client, "web-fed.emojivoto.svc.cluster.local:80").end).toEqual({
      code: status.UNKNOWN,
      details: "service emojivoto/web-fed is not a federated service",
    });
  });

  it("unites the remote and local sources, removes a dropped one, and ends when unfederated", async () => {
    const local = localCluster();
    const server = await startServer({
      cluster: local,
      remoteClusterFactory: recordingFactory().factory,
    });
    // The federation annotations win over the remote-discovery label.
    local.apply(
      labelled(
        federated({
          "multicluster.linkerd.io/remote-discovery": "web-svc@east,bad-entry,web-svc@west",
          "multicluster.linkerd.io/local-discovery": "web-local",
        }),
        { [REMOTE_LABEL]: "west", [REMOTE_SERVICE_LABEL]: "web-svc" },
      ),
    );
    const token = JSON.stringify({ ns: NS, nodeName: "node-a" });
    const stream = get(server.client, "web-fed.emojivoto.svc.cluster.local:80", token);
    expect(await stream.next()).toEqual({
      add: {
        addrs: [eastAddr("10.2.0.1")],
        metricLabels: { namespace: "emojivoto", service: "web-svc" },
      },
    });
    expect(await stream.next()).toEqual({
      add: { addrs: [localAddr], metricLabels: { namespace: "emojivoto", service: "web-local" } },
    });

    // The remote member leaves: its addresses are removed from the stream, the local ones stay.
    local.apply(federated({ "multicluster.linkerd.io/local-discovery": "web-local" }));
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.2.0.1") }, port: 8080 }] },
    });
    await server.waitForMetric(
      "endpoints_subscribers",
      { cluster: "east", namespace: NS, service: "web-svc", port: "80" },
      undefined,
    );

    // Both annotations gone: the stream ends with OK and the proxy reconnects.
    local.apply(service("web-fed", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }));
    expect(await stream.end).toEqual({ code: status.OK, details: "" });
    expect(stream.unread).toBe(0);
  });

  it("a member cluster linked later adds its endpoints, and an unlinked one removes them", async () => {
    const local = localCluster();
    const server = await startServer({
      cluster: local,
      remoteClusterFactory: recordingFactory().factory,
    });
    local.apply(
      federated({
        "multicluster.linkerd.io/remote-discovery": "web-svc@east,web-svc@west",
        "multicluster.linkerd.io/local-discovery": "web-local",
      }),
    );
    const stream = get(server.client, "web-fed.emojivoto.svc.cluster.local:80");
    const webSvc = { metricLabels: { namespace: "emojivoto", service: "web-svc" } };
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.1")], ...webSvc } });
    expect(await stream.next()).toEqual({
      add: { addrs: [localAddr], metricLabels: { namespace: "emojivoto", service: "web-local" } },
    });

    // west is linked after the stream started: its endpoints join the open stream.
    local.apply(linkSecret("west", "west 10.3.0.1"));
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.3.0.1")], ...webSvc } });

    // Unlinked, each cluster withdraws what it sent; the local member stays.
    local.delete("Secret", "linkerd", "cluster-credentials-west");
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.3.0.1") }, port: 8080 }] },
    });
    local.delete("Secret", "linkerd", "cluster-credentials-east");
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.2.0.1") }, port: 8080 }] },
    });

    // Linked again: back in the same stream.
    local.apply(linkSecret("east", "east 10.2.0.3"));
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.3")], ...webSvc } });

    // The local member leaves too; the remote ones stay.
    local.apply(
      federated({ "multicluster.linkerd.io/remote-discovery": "web-svc@east,web-svc@west" }),
    );
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.1.0.1") }, port: 8080 }] },
    });
    expect(stream.ended).toBeUndefined();

    local.apply(service("web-fed", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }));
    expect(await stream.end).toEqual({ code: status.OK, details: "" });
    expect(stream.unread).toBe(0);
  });

  it("a relinked member cluster removes the old cluster's endpoints, then adds the new one's", async () => {
    const local = localCluster();
    const server = await startServer({
      cluster: local,
      remoteClusterFactory: recordingFactory().factory,
    });
    local.apply(federated({ "multicluster.linkerd.io/remote-discovery": "web-svc@east" }));
    const stream = get(server.client, "web-fed.emojivoto.svc.cluster.local:80");
    const webSvc = { metricLabels: { namespace: "emojivoto", service: "web-svc" } };
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.1")], ...webSvc } });

    local.apply(linkSecret("east", "east 10.2.0.2", "east-rotated"));
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.2.0.1") }, port: 8080 }] },
    });
    expect(await stream.next()).toEqual({ add: { addrs: [eastAddr("10.2.0.2")], ...webSvc } });

    // The replaced Secret goes: nothing changes for the stream.
    local.delete("Secret", "linkerd", "cluster-credentials-east");
    local.apply(service("web-fed", { namespace: NS, ports: [{ port: 80, protocol: "TCP" }] }));
    expect(await stream.end).toEqual({ code: status.OK, details: "" });
    expect(stream.unread).toBe(0);
  });
});
