// Kubernetes objects for tests, as plain JSON the way an API server (or a manifest) holds them.
import type {
  EndpointSlice,
  Node,
  PartialObjectMetadata,
  Pod,
  Server,
  Service,
  ServiceProfile,
} from "@destination/k8s-discovery";

export const PROXY_ENV = [
  { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
  { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" },
  { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
];

/** The `ipv4` field of an `IPAddress` in proto JSON (a fixed32 read big-endian). */
export function ipv4(text: string): number {
  return text.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

export function node(name: string, zone: string): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "topology.kubernetes.io/zone": zone } },
  };
}

export function service(
  namespace: string,
  name: string,
  ports: { name?: string; port: number; targetPort?: number | string }[],
  extra: { clusterIP?: string; annotations?: Record<string, string>; type?: string } = {},
): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      type: extra.type ?? "ClusterIP",
      ...(extra.clusterIP ? { clusterIP: extra.clusterIP, clusterIPs: [extra.clusterIP] } : {}),
      ports,
    },
  };
}

export function replicaSet(
  namespace: string,
  name: string,
  deployment: string,
): PartialObjectMetadata {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name,
      namespace,
      ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: deployment }],
    },
  };
}

export interface PodSpec {
  namespace: string;
  name: string;
  ip: string;
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

export function pod(spec: PodSpec): Pod {
  const meshed = spec.meshed ?? true;
  const hash = spec.replicaSet?.split("-").pop();
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
            ...(hostPort ? { hostPort } : {}),
          })),
        },
        ...(meshed ? [{ name: "linkerd-proxy", env: PROXY_ENV }] : []),
      ],
    },
    status: {
      phase: spec.phase ?? "Running",
      podIP: spec.ip,
      podIPs: [{ ip: spec.ip }],
      hostIP: spec.hostIp ?? "172.18.0.2",
      hostIPs: [{ ip: spec.hostIp ?? "172.18.0.2" }],
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
  namespace: string,
  name: string,
  serviceName: string,
  ports: { name?: string; port: number }[],
  endpoints: SliceEndpoint[],
): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace, labels: { "kubernetes.io/service-name": serviceName } },
    addressType: "IPv4",
    ports,
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true },
      ...(e.hostname ? { hostname: e.hostname } : {}),
      ...(e.zone !== undefined ? { zone: e.zone } : {}),
      ...(e.forZones ? { hints: { forZones: e.forZones.map((z) => ({ name: z })) } } : {}),
      ...(e.pod ? { targetRef: { kind: "Pod", namespace, name: e.pod } } : {}),
    })),
  };
}

export function serviceProfile(
  namespace: string,
  name: string,
  spec: ServiceProfile["spec"],
): ServiceProfile {
  return {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { name, namespace },
    spec,
  };
}

export function opaqueServer(
  namespace: string,
  name: string,
  matchLabels: Record<string, string>,
  port: number | string,
): Server {
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace },
    spec: { podSelector: { matchLabels }, port, proxyProtocol: "opaque" },
  };
}
