/**
 * Synthetic cluster contents: meshed pods owned by ReplicaSets, their Services and one
 * EndpointSlice per Service, built with @destination/core/testing.
 */
import type {
  EndpointSlice,
  KubeObject,
  Node,
  PartialObjectMetadata,
  Pod,
  Server,
  Service,
  ServiceProfile,
} from "@destination/core";
import * as build from "@destination/test-support/builders";
import type { EndpointTranslatorConfig } from "@destination/translators";

export const SERVICE_PORT = 8080;

/** The translation settings of a server started with its default flags, for scripts that translate. */
export const DEFAULT_TRANSLATOR_CONFIG: EndpointTranslatorConfig = {
  controllerNamespace: "linkerd",
  identityTrustDomain: "cluster.local",
  enableH2Upgrade: true,
  forceOpaqueTransport: false,
  extEndpointZoneWeights: false,
  defaultOpaquePorts: new Set(),
};
export const NAMESPACES = 10;
export const NODES = 3;
const ZONES = ["zone-a", "zone-b", "zone-c"];

export function serviceName(index: number): string {
  return `svc-${index}`;
}

export function namespaceOf(serviceIndex: number): string {
  return `ns-${serviceIndex % NAMESPACES}`;
}

/** The Get authority of a service of the dataset. */
export function authority(serviceIndex: number): string {
  return `${serviceName(serviceIndex)}.${namespaceOf(serviceIndex)}.svc.cluster.local:${SERVICE_PORT}`;
}

/** The n-th pod IP (n ≥ 0): 10.0.0.1, 10.0.0.2, … (16M addresses). */
export function podIp(n: number): string {
  const v = n + 1;
  return `10.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export function node(index: number): Node {
  return build.node(`node-${index}`, { zone: ZONES[index % ZONES.length] as string });
}

/** The pod-template hash of the dataset's first ReplicaSets. */
export const FIRST_HASH = "5d8f7c9b6";

export function replicaSet(serviceIndex: number, hash = FIRST_HASH): PartialObjectMetadata {
  const name = serviceName(serviceIndex);
  return build.replicaSet(`${name}-${hash}`, name, { namespace: namespaceOf(serviceIndex) });
}

/** A Service on `SERVICE_PORT`, to the pods' `http` port unless `targetPort` says otherwise. */
export function service(serviceIndex: number, targetPort: number | string = "http"): Service {
  return build.service(serviceName(serviceIndex), {
    namespace: namespaceOf(serviceIndex),
    clusterIP: `172.20.${(serviceIndex >>> 8) & 255}.${serviceIndex & 255}`,
    ports: [{ name: "http", port: SERVICE_PORT, targetPort }],
    selector: { app: serviceName(serviceIndex) },
  });
}

/**
 * A meshed pod of a service; `name` and `ip` identify it, `hash` names its ReplicaSet
 * (`FIRST_HASH` by default).
 */
export function pod(
  serviceIndex: number,
  name: string,
  ip: string,
  nodeIndex: number,
  hash = FIRST_HASH,
): Pod {
  const app = serviceName(serviceIndex);
  return build.pod(name, {
    namespace: namespaceOf(serviceIndex),
    meshed: true,
    labels: { app, "pod-template-hash": hash },
    replicaSet: `${app}-${hash}`,
    nodeName: `node-${nodeIndex % NODES}`,
    serviceAccountName: app,
    ports: [{ name: "http", containerPort: SERVICE_PORT }],
    ip,
    hostIp: `192.168.0.${(nodeIndex % NODES) + 1}`,
  });
}

export interface SliceEndpointRef {
  readonly pod: string;
  readonly ip: string;
  readonly node: number;
}

/** The name of a service's slice: its first, or another one when a slice is split. */
export function sliceName(serviceIndex: number, suffix = "abcde"): string {
  return `${serviceName(serviceIndex)}-${suffix}`;
}

export function slice(
  serviceIndex: number,
  endpoints: readonly SliceEndpointRef[],
  options: { name?: string; notReady?: ReadonlySet<string> } = {},
): EndpointSlice {
  const namespace = namespaceOf(serviceIndex);
  const name = serviceName(serviceIndex);
  return build.slice(
    options.name ?? sliceName(serviceIndex),
    name,
    endpoints.map((e) =>
      build.podEndpoint(e.pod, e.ip, {
        namespace,
        ...(options.notReady?.has(e.pod) ? { ready: false, serving: false } : { serving: true }),
        terminating: false,
        nodeName: `node-${e.node % NODES}`,
        zone: ZONES[e.node % ZONES.length] as string,
      }),
    ),
    { namespace, ports: [{ name: "http", port: SERVICE_PORT, protocol: "TCP" }] },
  );
}

/** A Server selecting a service's pods on the service port: opaque, or HTTP/1. */
export function policyServer(serviceIndex: number, name: string, proxyProtocol: string): Server {
  return build.server(name, {
    namespace: namespaceOf(serviceIndex),
    port: SERVICE_PORT,
    proxyProtocol,
    podSelector: { app: serviceName(serviceIndex) },
  });
}

/** A service's ServiceProfile; `revision` changes its one route's timeout. */
export function serviceProfile(serviceIndex: number, revision: number): ServiceProfile {
  const host = authority(serviceIndex).replace(/:\d+$/, "");
  return build.serviceProfile(
    host,
    {
      routes: [
        {
          name: "GET /api",
          condition: { method: "GET", pathRegex: "/api" },
          timeout: `${100 + revision}ms`,
        },
      ],
    },
    { namespace: namespaceOf(serviceIndex) },
  );
}

export interface Dataset {
  readonly byKind: {
    readonly Node: Node[];
    readonly ReplicaSet: PartialObjectMetadata[];
    readonly Service: Service[];
    readonly Pod: Pod[];
    readonly EndpointSlice: EndpointSlice[];
  };
  /** The current endpoints of each service's slice, for changes after the start. */
  readonly endpoints: SliceEndpointRef[][];
  readonly objectCount: number;
}

/** `services` services with `podsPerService` pods each, pod IPs numbered from 0. */
export function dataset(services: number, podsPerService: number): Dataset {
  const byKind: Dataset["byKind"] = {
    Node: [],
    ReplicaSet: [],
    Service: [],
    Pod: [],
    EndpointSlice: [],
  };
  for (let n = 0; n < NODES; n++) byKind.Node.push(node(n));
  const endpoints: SliceEndpointRef[][] = [];
  let ipIndex = 0;
  for (let s = 0; s < services; s++) {
    byKind.Service.push(service(s));
    byKind.ReplicaSet.push(replicaSet(s));
    const refs: SliceEndpointRef[] = [];
    for (let p = 0; p < podsPerService; p++) {
      const ref = {
        pod: `${serviceName(s)}-${FIRST_HASH}-${p}`,
        ip: podIp(ipIndex),
        node: ipIndex,
      };
      ipIndex++;
      byKind.Pod.push(pod(s, ref.pod, ref.ip, ref.node));
      refs.push(ref);
    }
    byKind.EndpointSlice.push(slice(s, refs));
    endpoints.push(refs);
  }
  const objectCount = Object.values(byKind).reduce((n, list) => n + list.length, 0);
  return { byKind, endpoints, objectCount };
}

/** Kinds in the order an initial list should deliver them (pods before the slices naming them). */
export const LIST_ORDER = ["Node", "ReplicaSet", "Service", "Pod", "EndpointSlice"] as const;

export type ListKind = (typeof LIST_ORDER)[number];

export function listOf(byKind: Dataset["byKind"], kind: ListKind): KubeObject[] {
  return byKind[kind] as KubeObject[];
}
