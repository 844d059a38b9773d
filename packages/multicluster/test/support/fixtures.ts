// Builders and recorders shared by this package's tests (not part of the API).

import type { AddressSet, EndpointSlice, Secret, Service } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { endpoint, service, slice } from "@destination/test-support/builders";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { ClusterStore, type RemoteCluster } from "../../src/cluster-store.js";
import { LINK_SECRET_TYPE, MULTICLUSTER_CLUSTER_NAME_LABEL } from "../../src/link-secret.js";

export const NS = "emojivoto";
export const CONTROLLER_NS = "linkerd";

/** A link Secret; its kubeconfig text is `<cluster> <ip>`, which the harness's factory reads. */
export function linkSecret(
  cluster: string,
  ip: string,
  name = `cluster-credentials-${cluster}`,
): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: LINK_SECRET_TYPE,
    metadata: {
      name,
      namespace: CONTROLLER_NS,
      labels: { [MULTICLUSTER_CLUSTER_NAME_LABEL]: cluster },
      annotations: {
        "multicluster.linkerd.io/cluster-domain": `${cluster}.local`,
        "multicluster.linkerd.io/trust-domain": `${cluster}.example`,
      },
    },
    data: { kubeconfig: Buffer.from(`${cluster} ${ip}`).toString("base64") },
  };
}

/** `web-svc` served from `ip`:8080, with no pod behind it (enough for an address). */
function remoteObjects(ip: string): [Service, EndpointSlice] {
  return [
    service("web-svc", { namespace: NS }),
    slice("web-svc-1", "web-svc", [endpoint(ip)], { namespace: NS }),
  ];
}

export interface MadeCluster {
  readonly kubeconfig: string;
  readonly cluster: MemoryCluster;
  stopped: boolean;
}

/**
 * A local in-memory cluster that is also the Secret source, and a cluster store fed from its
 * controller namespace. Remote clusters are in-memory clusters serving `web-svc` from the ip of
 * their kubeconfig; a kubeconfig of `<name> broken` makes the factory throw.
 */
export function harness() {
  const local = new MemoryCluster();
  const metrics = new InMemoryMetrics();
  const made: MadeCluster[] = [];
  const store = new ClusterStore({
    factory: (name, kubeconfig) => {
      const ip = kubeconfig.split(" ")[1] ?? "";
      if (ip === "broken") throw new Error("unreadable kubeconfig");
      const cluster = new MemoryCluster({ name });
      for (const obj of remoteObjects(ip)) cluster.apply(obj);
      const entry: MadeCluster = { kubeconfig, cluster, stopped: false };
      cluster.stop = async () => {
        entry.stopped = true;
      };
      made.push(entry);
      return cluster;
    },
    enableEndpointSlices: true,
    enableIPv6: true,
    syncTimeoutMs: 1_000,
    metrics,
  });
  /** `<name> <ip>` of a remote cluster, from the kubeconfig it was made with. */
  const describe = (remote: RemoteCluster | undefined): string =>
    remote === undefined
      ? "none"
      : (made.find((m) => m.cluster === remote.cluster)?.kubeconfig ?? "unknown");
  const watchSecrets = () => local.watchSecrets(CONTROLLER_NS, store.events);
  return { local, metrics, made, store, describe, watchSecrets };
}

/** Every event a cluster store listener heard, as text, with the old cluster's stopped state. */
export function recordClusterEvents(h: ReturnType<typeof harness>): string[] {
  const events: string[] = [];
  const stopped = (remote: RemoteCluster) =>
    h.made.find((m) => m.cluster === remote.cluster)?.stopped ? " (stopped)" : "";
  h.store.subscribe({
    linked: (remote, previous) =>
      events.push(
        previous === undefined
          ? `linked ${h.describe(remote)}`
          : `linked ${h.describe(remote)} replacing ${h.describe(previous)}${stopped(previous)}`,
      ),
    unlinked: (remote) => events.push(`unlinked ${h.describe(remote)}${stopped(remote)}`),
  });
  return events;
}

/** The ips a remote cluster's watcher serves for `web-svc:80`, as one subscriber sees them. */
export function servedIps(remote: RemoteCluster): string[] {
  const ips = new Set<string>();
  const listener = {
    add: (set: AddressSet) => {
      for (const { address } of set.addresses.values()) ips.add(address.ip);
    },
    remove: (set: AddressSet) => {
      for (const { address } of set.addresses.values()) ips.delete(address.ip);
    },
  };
  const key = { hostname: "", nodeName: "", enableEndpointFiltering: false };
  const svc = { namespace: NS, name: "web-svc" };
  remote.watcher.subscribe(svc, 80, key, listener);
  remote.watcher.unsubscribe(svc, 80, key, listener);
  return [...ips].sort();
}
