// Builders and a recording listener shared by this package's tests.

import {
  type Address,
  type ContainerPort,
  type ExternalWorkload,
  InMemoryMetrics,
  type Pod,
  type Server,
  type WorkloadListener,
} from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { WorkloadWatcher, type WorkloadWatcherOptions } from "./workload-watcher.js";

export const NS = "ns";

export interface PodSpec {
  ip?: string;
  phase?: string;
  ports?: ContainerPort[];
  initPorts?: ContainerPort[];
  hostIp?: string;
  hostNetwork?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** A ReplicaSet parent; `ownedBy(…)` puts it (and its Deployment) in the cache. */
  replicaSet?: string;
  deletionTimestamp?: string;
}

export function pod(name: string, spec: PodSpec = {}): Pod {
  const ip = spec.ip ?? "10.0.0.1";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: NS,
      labels: spec.labels ?? { app: "web" },
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
      ...(spec.replicaSet
        ? {
            ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: spec.replicaSet }],
          }
        : {}),
      ...(spec.deletionTimestamp ? { deletionTimestamp: spec.deletionTimestamp } : {}),
    },
    spec: {
      ...(spec.hostNetwork ? { hostNetwork: true } : {}),
      containers: [{ name: "app", ports: spec.ports ?? [{ containerPort: 8080 }] }],
      ...(spec.initPorts ? { initContainers: [{ name: "sidecar", ports: spec.initPorts }] } : {}),
    },
    status: {
      phase: spec.phase ?? "Running",
      ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
      ...(spec.hostIp ? { hostIP: spec.hostIp, hostIPs: [{ ip: spec.hostIp }] } : {}),
    },
  };
}

/** A ReplicaSet owned by a Deployment, so pods naming it resolve to `deployment/<deployment>`. */
export function replicaSet(name: string, deployment: string) {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      namespace: NS,
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: deployment }],
    },
  };
}

export function server(
  name: string,
  spec: {
    port: number | string;
    podSelector?: Record<string, string>;
    externalWorkloadSelector?: Record<string, string>;
    proxyProtocol?: string;
    namespace?: string;
  },
): Server {
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace: spec.namespace ?? NS },
    spec: {
      port: spec.port,
      proxyProtocol: spec.proxyProtocol ?? "opaque",
      ...(spec.podSelector ? { podSelector: { matchLabels: spec.podSelector } } : {}),
      ...(spec.externalWorkloadSelector
        ? { externalWorkloadSelector: { matchLabels: spec.externalWorkloadSelector } }
        : {}),
    },
  };
}

export function externalWorkload(
  name: string,
  spec: {
    ip?: string;
    ports?: { port: number; name?: string }[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    owner?: { kind: string; name: string };
  } = {},
): ExternalWorkload {
  return {
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: {
      name,
      namespace: NS,
      labels: spec.labels ?? { app: "vm" },
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
      ...(spec.owner ? { ownerReferences: [{ apiVersion: "v1", ...spec.owner }] } : {}),
    },
    spec: {
      meshTLS: { identity: "spiffe://vm", serverName: "vm" },
      ports: spec.ports ?? [{ port: 8080 }],
      workloadIPs: [{ ip: spec.ip ?? "192.168.1.10" }],
    },
  };
}

/** What a test compares: the observable fields of an address, in a readable form. */
export interface AddressView {
  ip: string;
  port: number;
  pod: string | null;
  ew: string | null;
  owner: string;
  opaque: boolean;
}

export function view(a: Address): AddressView {
  return {
    ip: a.ip,
    port: a.port,
    pod: a.pod?.metadata.name ?? null,
    ew: a.externalWorkload?.metadata.name ?? null,
    owner: a.ownerKind || a.ownerName ? `${a.ownerKind}/${a.ownerName}` : "",
    opaque: a.opaqueProtocol,
  };
}

/** A listener that records every address it is handed. */
export class RecordingListener implements WorkloadListener {
  readonly received: Address[] = [];

  update(address: Address): void {
    this.received.push(address);
  }

  get views(): AddressView[] {
    return this.received.map(view);
  }
}

/** A cluster with one ReplicaSet (`web-rs` → `deployment/web`) and a started watcher. */
export async function setup(
  options: Partial<WorkloadWatcherOptions> = {},
  cluster: MemoryCluster = new MemoryCluster(),
) {
  const metrics = new InMemoryMetrics();
  cluster.apply(replicaSet("web-rs", "web"));
  const watcher = new WorkloadWatcher(cluster, {
    defaultOpaquePorts: new Set([3306]),
    enableEndpointSlices: true,
    metrics,
    ...options,
  });
  await cluster.start();
  return { cluster, watcher, metrics };
}

/** Lets pending promise callbacks (owner fetches) run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
