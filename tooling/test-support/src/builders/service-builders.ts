// Services, the objects that list their endpoints, and Nodes, as plain JSON the way an API server
// lists them.

import type {
  Endpoint,
  EndpointConditions,
  EndpointSlice,
  EndpointSlicePort,
  Endpoints,
  KubeObject,
  Node,
  OwnerReference,
  Service,
  ServicePort,
} from "@destination/core";
import { job, type Manifest, NS } from "./pod-builders.js";

/** The label that makes a Node's zone. */
export const ZONE_LABEL = "topology.kubernetes.io/zone";

export interface ServiceOptions {
  namespace?: string;
  /** Default `http` 80 → 8080. */
  ports?: ServicePort[];
  annotations?: Record<string, string>;
  /** Default `ClusterIP`. */
  type?: string;
  /** Also the only entry of `clusterIPs`; none by default. */
  clusterIP?: string;
  selector?: Record<string, string>;
  externalName?: string;
  internalTrafficPolicy?: string;
}

export function service(name: string, options: ServiceOptions = {}): Manifest<Service> {
  const { namespace, ports, annotations, type, clusterIP, ...spec } = options;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: namespace ?? NS, ...(annotations ? { annotations } : {}) },
    spec: {
      type: type ?? "ClusterIP",
      ...(clusterIP === undefined ? {} : { clusterIP, clusterIPs: [clusterIP] }),
      ports: ports ?? [{ name: "http", port: 80, targetPort: 8080 }],
      ...spec,
    },
  } as Manifest<Service>;
}

export interface EndpointOptions {
  /** The namespace of the target pod; default NS. */
  namespace?: string;
  /** The target pod; none for an address with no pod behind it. */
  pod?: string;
  /** Default true; `null` leaves it unset. */
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
  nodeName?: string;
  zone?: string;
  forZones?: string[];
  hostname?: string;
}

/** A slice endpoint at `ip`. */
export function endpoint(ip: string, options: EndpointOptions = {}): Endpoint {
  return endpointOf(ip, options.pod, options);
}

/** A slice endpoint for pod `podName` at `ip`. */
export function podEndpoint(podName: string, ip: string, options: EndpointOptions = {}): Endpoint {
  return endpointOf(ip, podName, options);
}

function endpointOf(ip: string, pod: string | undefined, options: EndpointOptions): Endpoint {
  // Assigned field by field rather than spread: the bench builds tens of thousands of these.
  const conditions: EndpointConditions = {
    ready: options.ready === undefined ? true : options.ready,
  };
  if (options.serving !== undefined) conditions.serving = options.serving;
  if (options.terminating !== undefined) conditions.terminating = options.terminating;
  const result: Endpoint = { addresses: [ip], conditions };
  if (pod !== undefined)
    result.targetRef = { kind: "Pod", namespace: options.namespace ?? NS, name: pod };
  if (options.nodeName !== undefined) result.nodeName = options.nodeName;
  if (options.zone !== undefined) result.zone = options.zone;
  if (options.hostname !== undefined) result.hostname = options.hostname;
  if (options.forZones !== undefined) {
    result.hints = { forZones: options.forZones.map((name) => ({ name })) };
  }
  return result;
}

export interface SliceOptions {
  namespace?: string;
  addressType?: "IPv4" | "IPv6" | "FQDN" | string;
  /** Default `http` 8080. */
  ports?: EndpointSlicePort[] | null;
  /** Default the `kubernetes.io/service-name` label. */
  labels?: Record<string, string> | null;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** An EndpointSlice of Service `serviceName`. */
export function slice(
  name: string,
  serviceName: string,
  endpoints: Endpoint[],
  options: SliceOptions = {},
): Manifest<EndpointSlice> {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      labels:
        options.labels === undefined
          ? { "kubernetes.io/service-name": serviceName }
          : options.labels,
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.ownerReferences ? { ownerReferences: options.ownerReferences } : {}),
    },
    addressType: options.addressType ?? "IPv4",
    endpoints,
    ports: options.ports === undefined ? [{ name: "http", port: 8080 }] : options.ports,
  } as Manifest<EndpointSlice>;
}

/** core/v1 Endpoints (read only in Endpoints mode). */
export function endpointsObject(
  name: string,
  subsets: NonNullable<Endpoints["subsets"]>,
  options: { namespace?: string; annotations?: Record<string, string> } = {},
): Manifest<Endpoints> {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    subsets,
  } as Manifest<Endpoints>;
}

/** A Node; its zone is the ZONE_LABEL label. */
export function node(
  name: string,
  options: { zone?: string; labels?: Record<string, string> } = {},
): Manifest<Node> {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        ...options.labels,
        ...(options.zone === undefined ? {} : { [ZONE_LABEL]: options.zone }),
      },
    },
  } as Manifest<Node>;
}

export function namespace(name: string): Manifest<KubeObject> {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

/**
 * What every real cluster has besides the tests' own objects: the Node the pods of CLUSTER_POD
 * run on, and a CronJob's Job. The metadata-only caches (Nodes, ReplicaSets, Jobs) then list
 * something; an empty metadata-only list is the subject of tooling/integration's
 * `cluster-sync.int.test.ts`.
 */
export function clusterBasics() {
  return [
    node("node-a"),
    job("nightly-29000000", {
      namespace: "batch",
      ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "nightly" }],
    }),
  ];
}
