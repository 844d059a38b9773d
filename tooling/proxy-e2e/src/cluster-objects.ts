// The Kubernetes objects the scenarios serve: written the way a cluster's controllers would
// have stored them (a Pod with its status, an EndpointSlice per Service), so the same objects
// work in a manifests folder and on a real API server.
import { createHash } from "node:crypto";

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
};

export const NAMESPACE = "default";
export const CONTROL_PLANE_NS = "linkerd";
export const TRUST_DOMAIN = "cluster.local";
/** The inbound port of a meshed pod's proxy: where mTLS and opaque transport arrive. */
export const PROXY_INBOUND_PORT = 4143;

/** The identity our server gives a meshed pod's proxy (and the name that proxy must have). */
export function podIdentity(serviceAccount: string, namespace = NAMESPACE): string {
  return `${serviceAccount}.${namespace}.serviceaccount.identity.${CONTROL_PLANE_NS}.${TRUST_DOMAIN}`;
}

export function uidOf(...parts: string[]): string {
  const h = createHash("sha1").update(parts.join("/")).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface ServiceSpec {
  readonly name: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly targetPort: number;
  readonly annotations?: Record<string, string>;
}

export function service(s: ServiceSpec): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: s.name,
      namespace: NAMESPACE,
      ...(s.annotations ? { annotations: s.annotations } : {}),
    },
    spec: {
      type: "ClusterIP",
      clusterIP: s.clusterIP,
      clusterIPs: [s.clusterIP],
      selector: { app: s.name },
      ports: [{ name: "http", port: s.port, targetPort: s.targetPort, protocol: "TCP" }],
    },
  };
}

export interface PodSpec {
  readonly name: string;
  /** The Service it backs (its `app` label). */
  readonly app: string;
  readonly ip: string;
  readonly port: number;
  /** A proxy in front of it: the control-plane label and a linkerd-proxy container. */
  readonly meshed?: boolean;
  readonly serviceAccount?: string;
  readonly annotations?: Record<string, string>;
  /** Published on the node at hostIP:hostPort. */
  readonly hostPort?: number;
  readonly hostIP?: string;
}

export const NODE_NAME = "node-a";
export const NODE_IP = "10.250.0.2";

export function pod(p: PodSpec): KubeObject {
  const containers: unknown[] = [
    {
      name: "app",
      image: "example.invalid/app:1",
      ports: [
        {
          name: "http",
          containerPort: p.port,
          ...(p.hostPort === undefined ? {} : { hostPort: p.hostPort }),
        },
      ],
    },
  ];
  if (p.meshed) {
    containers.push({
      name: "linkerd-proxy",
      image: "example.invalid/proxy:1",
      ports: [{ name: "linkerd-proxy", containerPort: PROXY_INBOUND_PORT }],
      env: [
        { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: `0.0.0.0:${PROXY_INBOUND_PORT}` },
        { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" },
        { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
      ],
    });
  }
  const hostIP = p.hostIP ?? NODE_IP;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: p.name,
      namespace: NAMESPACE,
      uid: uidOf("pod", p.name, p.ip),
      labels: {
        app: p.app,
        ...(p.meshed
          ? { "linkerd.io/control-plane-ns": CONTROL_PLANE_NS, "linkerd.io/workload-ns": NAMESPACE }
          : {}),
      },
      ...(p.annotations ? { annotations: p.annotations } : {}),
    },
    spec: {
      nodeName: NODE_NAME,
      serviceAccountName: p.serviceAccount ?? p.app,
      containers,
    },
    status: {
      phase: "Running",
      hostIP,
      hostIPs: [{ ip: hostIP }],
      podIP: p.ip,
      podIPs: [{ ip: p.ip }],
      conditions: [{ type: "Ready", status: "True" }],
    },
  };
}

/** The EndpointSlice the controller would write for `serviceName` over `pods`. */
export function endpointSlice(serviceName: string, port: number, pods: readonly PodSpec[]) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${serviceName}-slice`,
      namespace: NAMESPACE,
      labels: {
        "kubernetes.io/service-name": serviceName,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
      },
    },
    addressType: "IPv4",
    ports: [{ name: "http", port, protocol: "TCP" }],
    endpoints: pods.map((p) => ({
      addresses: [p.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: NODE_NAME,
      targetRef: {
        kind: "Pod",
        namespace: NAMESPACE,
        name: p.name,
        uid: uidOf("pod", p.name, p.ip),
      },
    })),
  } satisfies KubeObject;
}

export function node(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: NODE_NAME, labels: { "kubernetes.io/hostname": NODE_NAME } },
    status: { addresses: [{ type: "InternalIP", address: NODE_IP }] },
  };
}

export interface RouteSpec {
  readonly name: string;
  readonly pathRegex: string;
  readonly isRetryable?: boolean;
  readonly timeout?: string;
}

export function serviceProfile(
  serviceName: string,
  routes: readonly RouteSpec[],
  extra: { retryBudget?: object; dstOverrides?: { authority: string; weight: string }[] } = {},
): KubeObject {
  return {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { name: `${serviceName}.${NAMESPACE}.svc.cluster.local`, namespace: NAMESPACE },
    spec: {
      routes: routes.map((r) => ({
        name: r.name,
        condition: { method: "GET", pathRegex: r.pathRegex },
        ...(r.isRetryable ? { isRetryable: true } : {}),
        ...(r.timeout ? { timeout: r.timeout } : {}),
      })),
      ...(extra.retryBudget ? { retryBudget: extra.retryBudget } : {}),
      ...(extra.dstOverrides ? { dstOverrides: extra.dstOverrides } : {}),
    },
  };
}

/** A policy.linkerd.io Server selecting `app`'s pods on `port`, with a proxy protocol. */
export function server(name: string, app: string, port: number, proxyProtocol: string): KubeObject {
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace: NAMESPACE },
    spec: { podSelector: { matchLabels: { app } }, port, proxyProtocol },
  };
}

/** The fully qualified name of a Service, as `l5d-dst-override` and profiles use it. */
export function fqdn(serviceName: string, port: number): string {
  return `${serviceName}.${NAMESPACE}.svc.cluster.local:${port}`;
}
