// Pods and the objects that own them, as plain JSON the way an API server lists them.

import type {
  Container,
  ContainerPort,
  KubeObject,
  OwnerReference,
  PartialObjectMetadata,
  Pod,
} from "@destination/core";

/**
 * An object as the builders make it: kind and apiVersion set, metadata fields never null, so it
 * also fits the untyped `KubeObject` of tooling/integration, which applies it to an API server.
 */
export type Manifest<T extends KubeObject> = T & {
  [key: string]: unknown;
  apiVersion: string;
  kind: string;
  metadata: {
    [key: string]: unknown;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string }[];
  };
};

/** The namespace every builder puts its object in unless told otherwise. */
export const NS = "ns";

/** The env of a `linkerd-proxy` container, as injected by the `linkerd` control plane. */
export const PROXY_ENV = [
  { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
  { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" },
  { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
];

export interface PodOptions {
  namespace?: string;
  uid?: string;
  /** Pod IP(s): default 10.0.0.1; `""` for a pod the kubelet has not started. */
  ip?: string | string[];
  /** Default `Running`. */
  phase?: string;
  /** Ports of the `app` container; default `http` → 8080. */
  ports?: ContainerPort[];
  /** Ports of an init (sidecar) container. */
  initPorts?: ContainerPort[];
  nodeName?: string;
  hostIp?: string;
  hostNetwork?: boolean;
  /** Default `{ app: "web" }`. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  /** A ReplicaSet parent (an owner reference); `replicaSet(…)` builds the ReplicaSet itself. */
  replicaSet?: string;
  deletionTimestamp?: string;
  serviceAccountName?: string;
  /**
   * Injected by the `linkerd` control plane: the `linkerd.io/control-plane-ns` label and a
   * `linkerd-proxy` container with PROXY_ENV.
   */
  meshed?: boolean;
}

export function pod(name: string, options: PodOptions = {}): Manifest<Pod> {
  // Assigned field by field rather than spread: the bench builds tens of thousands of these.
  const labels = options.labels ?? { app: "web" };
  const metadata: Pod["metadata"] = {
    name,
    namespace: options.namespace ?? NS,
    labels: options.meshed
      ? Object.assign({ "linkerd.io/control-plane-ns": "linkerd" }, labels)
      : labels,
  };
  if (options.uid !== undefined) metadata.uid = options.uid;
  if (options.annotations) metadata.annotations = options.annotations;
  if (options.ownerReferences) metadata.ownerReferences = options.ownerReferences;
  if (options.replicaSet) {
    const owner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: options.replicaSet };
    metadata.ownerReferences = [...(options.ownerReferences ?? []), owner];
  }
  if (options.deletionTimestamp) metadata.deletionTimestamp = options.deletionTimestamp;

  const containers: Container[] = [
    { name: "app", ports: options.ports ?? [{ name: "http", containerPort: 8080 }] },
  ];
  if (options.meshed) containers.push({ name: "linkerd-proxy", env: PROXY_ENV });
  const spec: NonNullable<Pod["spec"]> = {};
  if (options.nodeName !== undefined) spec.nodeName = options.nodeName;
  if (options.serviceAccountName !== undefined) {
    spec.serviceAccountName = options.serviceAccountName;
  }
  if (options.hostNetwork) spec.hostNetwork = true;
  spec.containers = containers;
  if (options.initPorts) spec.initContainers = [{ name: "sidecar", ports: options.initPorts }];

  const status: NonNullable<Pod["status"]> = { phase: options.phase ?? "Running" };
  const ips = options.ip ?? "10.0.0.1";
  if (typeof ips !== "string") {
    status.podIP = ips[0] ?? "";
    status.podIPs = ips.map((ip) => ({ ip }));
  } else if (ips) {
    status.podIP = ips;
    status.podIPs = [{ ip: ips }];
  }
  if (options.hostIp) {
    status.hostIP = options.hostIp;
    status.hostIPs = [{ ip: options.hostIp }];
  }
  return { apiVersion: "v1", kind: "Pod", metadata, spec, status } as Manifest<Pod>;
}

/**
 * A pod as a cluster runs it, where the server's tests and tooling/integration start theirs:
 * meshed, on node `node-a` (host IP 172.18.0.2), service account `default`, no pod IP unless
 * given. Spread it first and give the rest:
 * `pod(name, { ...CLUSTER_POD, namespace, ip, labels: {}, ports: [] })`.
 */
export const CLUSTER_POD = {
  ip: "",
  meshed: true,
  nodeName: "node-a",
  hostIp: "172.18.0.2",
  serviceAccountName: "default",
} as const satisfies PodOptions;

export interface MeshedPodOptions {
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** The proxy's env; default PROXY_ENV. */
  env?: { name: string; value?: string }[];
  serviceAccountName?: string;
}

/**
 * A pod injected by the `linkerd` control plane, as a translator reads it: metadata and spec only
 * (no status), in namespace NS, with the usual proxy env.
 */
export function meshedPod(name: string, extra: MeshedPodOptions = {}): Pod {
  return {
    metadata: {
      name,
      namespace: NS,
      labels: { "linkerd.io/control-plane-ns": "linkerd", ...extra.labels },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      serviceAccountName: extra.serviceAccountName ?? "serviceaccount-name",
      containers: [
        { name: "app", ports: [{ name: "http", containerPort: 8080 }] },
        { name: "linkerd-proxy", env: extra.env ?? PROXY_ENV },
      ],
    },
  };
}

/** A pod with no proxy, as a translator reads it (metadata and spec only). */
export function unmeshedPod(name: string, annotations?: Record<string, string>): Pod {
  return {
    metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
    spec: { serviceAccountName: "serviceaccount-name", containers: [{ name: "app" }] },
  };
}

/**
 * A ReplicaSet owned by a Deployment, so pods naming it resolve to `deployment/<deployment>`; with
 * no Deployment (`null`), pods naming it resolve to the ReplicaSet itself.
 */
export function replicaSet(
  name: string,
  deployment: string | null,
  options: { namespace?: string; ownerUid?: string } = {},
): Manifest<PartialObjectMetadata> {
  const metadata: PartialObjectMetadata["metadata"] = { name, namespace: options.namespace ?? NS };
  if (deployment !== null) {
    const owner: OwnerReference = { apiVersion: "apps/v1", kind: "Deployment", name: deployment };
    if (options.ownerUid !== undefined) owner.uid = options.ownerUid;
    metadata.ownerReferences = [owner];
  }
  return { apiVersion: "apps/v1", kind: "ReplicaSet", metadata } as Manifest<PartialObjectMetadata>;
}

/** A batch/v1 Job (metadata only, as the Jobs cache reads it). */
export function job(
  name: string,
  options: {
    namespace?: string;
    labels?: Record<string, string>;
    ownerReferences?: OwnerReference[];
  } = {},
): Manifest<PartialObjectMetadata> {
  const metadata: PartialObjectMetadata["metadata"] = { name, namespace: options.namespace ?? NS };
  if (options.labels) metadata.labels = options.labels;
  if (options.ownerReferences) metadata.ownerReferences = options.ownerReferences;
  return { apiVersion: "batch/v1", kind: "Job", metadata } as Manifest<PartialObjectMetadata>;
}
