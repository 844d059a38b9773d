// Kubernetes objects for tests, as plain JSON the way a user or controller writes them (and an API
// server or a manifest holds them). Shared by apps/destination-server/test, which applies them to
// in-memory clusters, and tooling/integration, whose `ApiWriter.apply` adds what a real API
// server requires and the destination service never reads (images, owner uids, specs of
// ReplicaSets and Jobs). Return types are inferred, so the objects fit both the typed objects of
// @destination/k8s-discovery and the integration tests' untyped `KubeObject`.
import type { ServiceProfile } from "@destination/core";

export const PROXY_ENV = [
  { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
  { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" },
  { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
];

export function namespace(name: string) {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

/** A Node; its zone is the `topology.kubernetes.io/zone` label. */
export function node(name: string, labels: Record<string, string> = {}) {
  return { apiVersion: "v1", kind: "Node", metadata: { name, labels } };
}

export function service(
  ns: string,
  name: string,
  ports: { name?: string; port: number; targetPort?: number | string }[],
  extra: { clusterIP?: string; annotations?: Record<string, string>; type?: string } = {},
) {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name,
      namespace: ns,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      type: extra.type ?? "ClusterIP",
      ...(extra.clusterIP ? { clusterIP: extra.clusterIP, clusterIPs: [extra.clusterIP] } : {}),
      ports: ports.map((p) => ({ protocol: "TCP", ...p })),
    },
  };
}

export function replicaSet(ns: string, name: string, deployment: string) {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      namespace: ns,
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: deployment }],
    },
  };
}

export function job(ns: string, name: string, labels: Record<string, string> = {}) {
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace: ns, labels } };
}

export interface PodSpec {
  namespace: string;
  name: string;
  /** Pod IP; none for a pod the kubelet has not started. */
  ip?: string;
  /** Container ports: `[name, containerPort, hostPort?]`. */
  ports?: [string, number, number?][];
  meshed?: boolean;
  node?: string;
  hostIp?: string;
  replicaSet?: string;
  serviceAccount?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
}

export function pod(spec: PodSpec) {
  const meshed = spec.meshed ?? true;
  const hash = spec.replicaSet?.split("-").pop();
  const hostIp = spec.hostIp ?? "172.18.0.2";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: spec.name,
      namespace: spec.namespace,
      labels: {
        ...(meshed ? { "linkerd.io/control-plane-ns": "linkerd" } : {}),
        ...(hash ? { "pod-template-hash": hash } : {}),
        ...spec.labels,
      },
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
      ...(spec.replicaSet
        ? {
            ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: spec.replicaSet }],
          }
        : {}),
    },
    spec: {
      nodeName: spec.node ?? "node-a",
      serviceAccountName: spec.serviceAccount ?? "default",
      containers: [
        {
          name: "app",
          ports: (spec.ports ?? []).map(([name, containerPort, hostPort]) => ({
            name,
            containerPort,
            protocol: "TCP",
            ...(hostPort ? { hostPort } : {}),
          })),
        },
        ...(meshed ? [{ name: "linkerd-proxy", env: PROXY_ENV }] : []),
      ],
    },
    status: {
      phase: spec.phase ?? "Running",
      ...(spec.ip ? { podIP: spec.ip, podIPs: [{ ip: spec.ip }] } : {}),
      hostIP: hostIp,
      hostIPs: [{ ip: hostIp }],
    },
  };
}

export interface SliceEndpoint {
  ip: string;
  pod?: string;
  hostname?: string;
  zone?: string;
  forZones?: string[];
  ready?: boolean;
}

export function slice(
  ns: string,
  name: string,
  serviceName: string,
  ports: { name?: string; port: number }[],
  endpoints: SliceEndpoint[],
) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: ns, labels: { "kubernetes.io/service-name": serviceName } },
    addressType: "IPv4",
    ports: ports.map((p) => ({ protocol: "TCP", ...p })),
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true },
      ...(e.hostname ? { hostname: e.hostname } : {}),
      ...(e.zone !== undefined ? { zone: e.zone } : {}),
      ...(e.forZones ? { hints: { forZones: e.forZones.map((z) => ({ name: z })) } } : {}),
      ...(e.pod ? { targetRef: { kind: "Pod", namespace: ns, name: e.pod } } : {}),
    })),
  };
}

export function serviceProfile(ns: string, name: string, spec: ServiceProfile["spec"]) {
  return {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { name, namespace: ns },
    spec,
  };
}

/** A policy Server; opaque unless `proxyProtocol` says otherwise. */
export function server(
  ns: string,
  name: string,
  matchLabels: Record<string, string>,
  port: number | string,
  proxyProtocol = "opaque",
) {
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace: ns },
    spec: { podSelector: { matchLabels }, port, proxyProtocol },
  };
}

export function externalWorkload(ns: string, name: string, ip: string, port: number) {
  return {
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: {
      meshTLS: { identity: `spiffe://${name}`, serverName: name },
      workloadIPs: [{ ip }],
      ports: [{ port }],
    },
  };
}

/**
 * What every real cluster has besides the tests' own objects: the Node the pods run on, and a
 * CronJob's Job. The metadata-only caches (Nodes, ReplicaSets, Jobs) then list something; an
 * empty metadata-only list is the subject of tooling/integration's `cluster-sync.int.test.ts`.
 */
export function clusterBasics() {
  return [
    node("node-a"),
    {
      ...job("batch", "nightly-29000000"),
      metadata: {
        name: "nightly-29000000",
        namespace: "batch",
        ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "nightly" }],
      },
    },
  ];
}
