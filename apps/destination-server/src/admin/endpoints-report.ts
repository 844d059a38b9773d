// What the server knows about one Service's endpoints, and why each address is or is not handed
// to proxies: the data behind the admin server's `/debug/endpoints`. Read from the cluster caches
// with the same port rules as the endpoints watcher, so the answer matches what Get streams.

import type { Endpoint, EndpointSlice, NamespacedName, Pod, Service } from "@destination/core";

import { serviceTargetPort, slicePort, type TargetPort } from "@destination/endpoints-watcher";
import type { Cluster } from "@destination/k8s-discovery";

/** Why an address listed in a slice is not served. */
export type NotServedReason =
  | "not ready"
  | "pod missing"
  | "externalworkload missing"
  | "unsupported target kind"
  | "unsupported address type"
  | "no matching port"
  | "FQDN address"
  | "IPv6 disabled";

export interface ServiceReport {
  readonly namespace: string;
  readonly name: string;
  readonly type: string;
  readonly clusterIPs: string[];
  readonly internalTrafficPolicy: string | null;
  readonly ports: {
    name: string;
    port: number;
    targetPort: number | string | null;
    protocol: string;
  }[];
}

export interface PodReport {
  readonly name: string;
  readonly namespace: string;
  readonly phase: string | null;
  readonly podIP: string | null;
  readonly node: string | null;
  readonly owner: { kind: string; name: string };
}

export interface AddressReport {
  readonly address: string;
  /** The pod the endpoint's targetRef names, when it is a pod in the cache. */
  readonly pod: PodReport | null;
  readonly served: boolean;
  readonly reason: NotServedReason | null;
}

export interface EndpointReport {
  readonly addresses: AddressReport[];
  readonly conditions: {
    ready: boolean | null;
    serving: boolean | null;
    terminating: boolean | null;
  };
  readonly targetRef: { kind: string; namespace: string; name: string } | null;
  readonly nodeName: string | null;
  readonly zone: string | null;
  readonly hints: { forZones: string[] } | null;
}

export interface SliceReport {
  readonly name: string;
  readonly addressType: string;
  readonly ports: { name: string; port: number | null; protocol: string }[];
  /** For each Service port this slice serves, the port its endpoints listen on. */
  readonly servesPorts: { servicePort: number; port: number }[];
  readonly endpoints: EndpointReport[];
}

export interface SubscribersReport {
  /** Get streams watching the Service, all ports together. */
  readonly total: number;
  readonly ports: { port: number; subscribers: number }[];
}

export interface EndpointsReport {
  readonly service: ServiceReport | null;
  readonly endpointSlices: SliceReport[];
  readonly subscribers: SubscribersReport | null;
  /** How served addresses are narrowed further per subscriber, and other things worth knowing. */
  readonly notes: string[];
}

/** The endpoints watcher's subscriber counts (EndpointsWatcher has this shape). */
export interface SubscriberCounts {
  subscriberCount(service: NamespacedName, port?: number): number;
  subscribedPorts(service: NamespacedName): number[];
}

export interface EndpointsReportOptions {
  readonly enableIpv6: boolean;
  readonly enableEndpointSlices: boolean;
  readonly subscribers?: SubscriberCounts;
}

/** The report for one Service, or undefined when neither the Service nor any slice of it exist. */
export function endpointsReport(
  cluster: Cluster,
  id: NamespacedName,
  options: EndpointsReportOptions,
): EndpointsReport | undefined {
  const service = cluster.services.get(id.namespace, id.name);
  const slices = cluster.indexes
    .endpointSlicesOfService(id.namespace, id.name)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  if (service === undefined && slices.length === 0) return undefined;

  const sliceReports = slices.map((slice) => sliceReport(cluster, service, slice, options));
  return {
    service: service === undefined ? null : serviceReport(service),
    endpointSlices: sliceReports,
    subscribers: options.subscribers === undefined ? null : subscribers(options.subscribers, id),
    notes: notes(service, slices, options),
  };
}

function serviceReport(service: Service): ServiceReport {
  const spec = service.spec ?? {};
  return {
    namespace: service.metadata.namespace ?? "",
    name: service.metadata.name,
    type: spec.type ?? "ClusterIP",
    clusterIPs: spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []),
    internalTrafficPolicy: spec.internalTrafficPolicy ?? null,
    ports: (spec.ports ?? []).map((p) => ({
      name: p.name ?? "",
      port: p.port,
      targetPort: p.targetPort ?? null,
      protocol: p.protocol ?? "TCP",
    })),
  };
}

/**
 * The ports a slice serves. Without the Service, the watcher serves a requested port number
 * as it is, so any slice that lists ports serves; it is reported with no port pairs.
 */
function servedPortPairs(
  service: Service | undefined,
  slice: EndpointSlice,
): { servicePort: number; port: number }[] {
  const pairs: { servicePort: number; port: number }[] = [];
  for (const p of service?.spec?.ports ?? []) {
    const target: TargetPort = serviceTargetPort(service, p.port);
    const port = slicePort(slice, target);
    if (port !== 0) pairs.push({ servicePort: p.port, port });
  }
  return pairs;
}

function sliceReport(
  cluster: Cluster,
  service: Service | undefined,
  slice: EndpointSlice,
  options: EndpointsReportOptions,
): SliceReport {
  const servesPorts = servedPortPairs(service, slice);
  const family = slice.addressType;
  let sliceReason: NotServedReason | null = null;
  if (family !== "IPv4" && family !== "IPv6" && family !== "FQDN") {
    sliceReason = "unsupported address type";
  } else if (service === undefined ? slice.ports == null : servesPorts.length === 0) {
    sliceReason = "no matching port";
  }
  const namespace = slice.metadata.namespace ?? "";
  return {
    name: slice.metadata.name,
    addressType: family,
    ports: (slice.ports ?? []).map((p) => ({
      name: p.name ?? "",
      port: p.port ?? null,
      protocol: p.protocol ?? "TCP",
    })),
    servesPorts,
    endpoints: (slice.endpoints ?? [])
      .filter((ep) => ep != null)
      .map((ep) => endpointReport(cluster, namespace, family, ep, sliceReason, options)),
  };
}

function endpointReport(
  cluster: Cluster,
  sliceNamespace: string,
  family: string,
  ep: Endpoint,
  sliceReason: NotServedReason | null,
  options: EndpointsReportOptions,
): EndpointReport {
  const ref = ep.targetRef ?? null;
  // Manifests may omit the reference's namespace; the watcher reads the slice's then.
  const refNamespace = ref?.namespace || sliceNamespace;
  const pod = ref?.kind === "Pod" ? cluster.pods.get(refNamespace, ref.name ?? "") : undefined;

  // In the order the watcher drops addresses, so the first obstacle is the one reported.
  let reason = sliceReason;
  if (reason === null && ep.conditions?.ready === false) reason = "not ready";
  if (reason === null && ref != null) {
    if (ref.kind === "Pod") {
      if (pod === undefined) reason = "pod missing";
    } else if (ref.kind === "ExternalWorkload") {
      if (cluster.externalWorkloads.get(sliceNamespace, ref.name ?? "") === undefined) {
        reason = "externalworkload missing";
      }
    } else {
      reason = "unsupported target kind";
    }
  }
  // Carried by the watcher, but proxies are never sent names or (without IPv6) IPv6 addresses.
  if (reason === null && family === "FQDN") reason = "FQDN address";
  if (reason === null && family === "IPv6" && !options.enableIpv6) reason = "IPv6 disabled";

  const podView = pod === undefined ? null : podReport(cluster, pod);
  const forZones = (ep.hints?.forZones ?? []).filter((z) => z != null).map((z) => z.name);
  return {
    addresses: (ep.addresses ?? []).map((address) => ({
      address,
      pod: podView,
      served: reason === null,
      reason,
    })),
    conditions: {
      ready: ep.conditions?.ready ?? null,
      serving: ep.conditions?.serving ?? null,
      terminating: ep.conditions?.terminating ?? null,
    },
    targetRef:
      ref === null ? null : { kind: ref.kind ?? "", namespace: refNamespace, name: ref.name ?? "" },
    nodeName: ep.nodeName ?? null,
    zone: ep.zone ?? null,
    hints: ep.hints == null ? null : { forZones },
  };
}

function podReport(cluster: Cluster, pod: Pod): PodReport {
  const owner = cluster.podOwner(pod);
  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace ?? "",
    phase: pod.status?.phase ?? null,
    podIP: pod.status?.podIP ?? null,
    node: pod.spec?.nodeName ?? null,
    owner: { kind: owner.kind, name: owner.name },
  };
}

function subscribers(counts: SubscriberCounts, id: NamespacedName): SubscribersReport {
  return {
    total: counts.subscriberCount(id),
    ports: counts
      .subscribedPorts(id)
      .map((port) => ({ port, subscribers: counts.subscriberCount(id, port) })),
  };
}

function notes(
  service: Service | undefined,
  slices: readonly EndpointSlice[],
  options: EndpointsReportOptions,
): string[] {
  const out: string[] = [];
  if (service === undefined) {
    out.push("the Service is not in the cache: Get answers NOT_FOUND until it appears");
  } else if (service.spec?.type === "ExternalName") {
    out.push("ExternalName Service: Get answers INVALID_ARGUMENT, proxies resolve it by DNS");
  }
  if (!options.enableEndpointSlices) {
    out.push(
      "the server reads Endpoints objects, not EndpointSlices (--enable-endpoint-slices=false); the slices shown are not what it serves",
    );
  }
  const endpoints = slices.flatMap((s) => s.endpoints ?? []).filter((ep) => ep != null);
  if (service?.spec?.internalTrafficPolicy === "Local") {
    out.push(
      "internalTrafficPolicy is Local: a subscriber whose context token names its node gets only the endpoints on that node",
    );
  } else if (endpoints.some((ep) => (ep.hints?.forZones ?? []).length > 0)) {
    out.push(
      "topology: endpoints carry zone hints, so each subscriber whose context token names its node is filtered to the endpoints hinted for that node's zone (only when every endpoint has hints and some match the zone)",
    );
  }
  const families = new Set(slices.map((s) => s.addressType));
  if (options.enableIpv6 && families.has("IPv4") && families.has("IPv6")) {
    out.push("a workload with both IPv4 and IPv6 addresses is served over IPv6 only");
  }
  return out;
}
