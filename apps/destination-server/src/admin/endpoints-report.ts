// What the server knows about one Service's endpoints, and why each address is or is not handed
// to proxies: the data behind the admin server's `/debug/endpoints`, and that route's reply (at
// the end). Whether an address is served is the endpoints watcher's verdict
// (`explainSliceAddresses`, its own conversion and family rule), so the answer matches what Get
// streams.
import type { Endpoint, EndpointSlice, NamespacedName, Pod, Service } from "@destination/core";
import type { SliceExplanation } from "@destination/endpoints-watcher";
import {
  type AddressVerdict,
  explainSliceAddresses,
  type NotServedReason as WatcherReason,
} from "@destination/endpoints-watcher";
import type { Cluster } from "@destination/k8s-discovery";
import { InvalidAddressError, ipBytesFromString } from "@destination/proto";

/**
 * Why an address listed in a slice is not served: the watcher's reasons, and names, which the
 * watcher carries but a proxy cannot be sent (the translators drop what is not an IP).
 */
export type NotServedReason = WatcherReason | "FQDN address";

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

  const sliceReports = explainSliceAddresses(cluster, service, slices, {
    enableIPv6: options.enableIpv6,
  }).map((explained) => sliceReport(cluster, explained));
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

function sliceReport(cluster: Cluster, explained: SliceExplanation): SliceReport {
  const { slice, servesPorts, verdict } = explained;
  const namespace = slice.metadata.namespace ?? "";
  return {
    name: slice.metadata.name,
    addressType: slice.addressType,
    ports: (slice.ports ?? []).map((p) => ({
      name: p.name ?? "",
      port: p.port ?? null,
      protocol: p.protocol ?? "TCP",
    })),
    servesPorts: [...servesPorts],
    endpoints: (slice.endpoints ?? [])
      .filter((ep) => ep != null)
      .map((ep) => endpointReport(cluster, namespace, ep, verdict)),
  };
}

function endpointReport(
  cluster: Cluster,
  sliceNamespace: string,
  ep: Endpoint,
  verdict: AddressVerdict,
): EndpointReport {
  const ref = ep.targetRef ?? null;
  // Manifests may omit the reference's namespace; the watcher reads the slice's then.
  const refNamespace = ref?.namespace || sliceNamespace;
  const pod = ref?.kind === "Pod" ? cluster.pods.get(refNamespace, ref.name ?? "") : undefined;
  const podView = pod === undefined ? null : podReport(cluster, pod);
  const forZones = (ep.hints?.forZones ?? []).filter((z) => z != null).map((z) => z.name);
  return {
    addresses: (ep.addresses ?? []).map((address) => {
      const reason: NotServedReason | null =
        verdict(ep, address) ?? (isIp(address) ? null : "FQDN address");
      return { address, pod: podView, served: reason === null, reason };
    }),
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

/** Whether the translators can send `address` to a proxy (they encode IPs, not names). */
function isIp(address: string): boolean {
  try {
    ipBytesFromString(address);
    return true;
  } catch (err) {
    if (err instanceof InvalidAddressError) return false;
    throw err;
  }
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

// `GET /debug/endpoints?service=ns/name`: the query checked, then the endpoints report as JSON.

export interface JsonReply {
  readonly status: number;
  readonly body: unknown;
}

export type EndpointsReporter = (id: NamespacedName) => EndpointsReport | undefined;

// A namespace is a DNS label; a Service name a DNS-1035 label (it starts with a letter).
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SERVICE = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Reads `service=ns/name`, or says what is wrong with it. */
export function parseServiceParam(query: URLSearchParams): NamespacedName | string {
  const values = query.getAll("service");
  if (values.length === 0) return "missing query parameter service=NAMESPACE/NAME";
  if (values.length > 1) return "give the service parameter once";
  const value = values[0] ?? "";
  const [namespace, name, ...rest] = value.split("/");
  if (
    namespace === undefined ||
    name === undefined ||
    rest.length > 0 ||
    !NAMESPACE.test(namespace) ||
    !SERVICE.test(name)
  ) {
    return `service must be NAMESPACE/NAME, such as emojivoto/web-svc, not ${JSON.stringify(value)}`;
  }
  return { namespace, name };
}

/** The reply; `reporter` is undefined until the caches have synced. */
export function debugEndpointsReply(
  query: URLSearchParams,
  reporter: EndpointsReporter | undefined,
): JsonReply {
  const id = parseServiceParam(query);
  if (typeof id === "string") return { status: 400, body: { error: id } };
  if (reporter === undefined) {
    return { status: 503, body: { error: "the caches have not synced yet" } };
  }
  const report = reporter(id);
  if (report === undefined) {
    return {
      status: 404,
      body: {
        error: `Service ${id.namespace}/${id.name} not found (no Service, no EndpointSlices)`,
      },
    };
  }
  return { status: 200, body: report };
}
