// Builders and a recording listener shared by this package's tests (not part of the API).

import {
  type AddressSet,
  type AddressSetEntry,
  type Endpoint,
  type EndpointSlice,
  type EndpointSlicePort,
  type Endpoints,
  type EndpointsListener,
  InMemoryMetrics,
  type LabelSelector,
  type Pod,
  type Server,
  type Service,
  type ServicePort,
} from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { EndpointsWatcher, type EndpointsWatcherOptions } from "./endpoints-watcher.js";
import type { FilterKey } from "./filter-key.js";
import type { ServiceId } from "./service-id.js";

export const NS = "ns";
export const WEB: ServiceId = { namespace: NS, name: "web" };
export const LOCAL_KEY: FilterKey = { hostname: "", nodeName: "", enableEndpointFiltering: true };

/** The `endpoints_*` series labels of web:80 under LOCAL_KEY. */
export const SERIES = {
  cluster: "local",
  namespace: NS,
  service: "web",
  port: "80",
  hostname: "",
  nodename: "",
};

export function service(
  name: string,
  ports: ServicePort[] = [{ name: "http", port: 80, targetPort: 8080 }],
  spec: Service["spec"] = {},
): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    spec: { type: "ClusterIP", clusterIP: "10.96.0.10", ports, ...spec },
  };
}

export interface PodOptions {
  nodeName?: string;
  labels?: Record<string, string>;
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  ownerReferences?: { kind: string; name: string }[];
  annotations?: Record<string, string>;
}

export function pod(name: string, ips: string | string[], options: PodOptions = {}): Pod {
  const all = typeof ips === "string" ? [ips] : ips;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: NS,
      labels: options.labels ?? { app: "web" },
      ownerReferences: options.ownerReferences ?? null,
      annotations: options.annotations ?? null,
    },
    spec: {
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
      containers: [
        { name: "app", ports: options.ports ?? [{ name: "http", containerPort: 8080 }] },
      ],
    },
    status: { phase: "Running", podIP: all[0] ?? "", podIPs: all.map((ip) => ({ ip })) },
  };
}

export interface EndpointOptions {
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
  zone?: string;
  forZones?: string[];
  hostname?: string;
}

/** A slice endpoint for a pod of namespace NS. */
export function podEndpoint(podName: string, ip: string, options: EndpointOptions = {}): Endpoint {
  return {
    addresses: [ip],
    conditions: {
      ...(options.ready === undefined ? { ready: true } : { ready: options.ready }),
      ...(options.serving === undefined ? {} : { serving: options.serving }),
      ...(options.terminating === undefined ? {} : { terminating: options.terminating }),
    },
    targetRef: { kind: "Pod", namespace: NS, name: podName },
    ...(options.zone === undefined ? {} : { zone: options.zone }),
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    ...(options.forZones === undefined
      ? {}
      : { hints: { forZones: options.forZones.map((name) => ({ name })) } }),
  };
}

export interface SliceOptions {
  addressType?: "IPv4" | "IPv6" | "FQDN" | string;
  ports?: EndpointSlicePort[] | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string; apiVersion?: string }[];
}

export function slice(
  name: string,
  serviceName: string,
  endpoints: Endpoint[],
  options: SliceOptions = {},
): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name,
      namespace: NS,
      labels:
        options.labels === undefined
          ? { "kubernetes.io/service-name": serviceName }
          : options.labels,
      annotations: options.annotations ?? null,
      ownerReferences: options.ownerReferences ?? null,
    },
    addressType: options.addressType ?? "IPv4",
    endpoints,
    ports: options.ports === undefined ? [{ name: "http", port: 8080 }] : options.ports,
  };
}

export function endpointsObject(
  name: string,
  subsets: NonNullable<Endpoints["subsets"]>,
  annotations?: Record<string, string>,
): Endpoints {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name, namespace: NS, annotations: annotations ?? null },
    subsets,
  };
}

export function server(
  name: string,
  port: number | string,
  proxyProtocol: string,
  podSelector: LabelSelector | null = { matchLabels: { app: "web" } },
  namespace = NS,
): Server {
  return {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name, namespace },
    spec: { podSelector, port, proxyProtocol },
  };
}

/** `<id key> <ip>:<port>`, plus ` opaque` when a Server made it so. */
export function describeEntry(entry: AddressSetEntry): string {
  const { id, address } = entry;
  const opaque = address.opaqueProtocol ? " opaque" : "";
  return `${id.namespace}/${id.name}/${id.ipFamily} ${address.ip}:${address.port}${opaque}`;
}

export function describeSet(set: AddressSet): string[] {
  return [...set.addresses.values()].map(describeEntry).sort();
}

export type Call = { add: string[] } | { remove: string[] };

/**
 * A listener that records every call, and the set it holds if it applies each add as an
 * upsert and each remove as a delete, by ID.
 */
export class RecordingListener implements EndpointsListener {
  readonly sets: { op: "add" | "remove"; set: AddressSet }[] = [];
  readonly held = new Map<string, AddressSetEntry>();
  #taken = 0;

  add(set: AddressSet): void {
    this.sets.push({ op: "add", set });
    for (const [key, entry] of set.addresses) this.held.set(key, entry);
  }

  remove(set: AddressSet): void {
    this.sets.push({ op: "remove", set });
    for (const key of set.addresses.keys()) this.held.delete(key);
  }

  /** The calls since the last `take`, described. */
  take(): Call[] {
    const calls = this.sets
      .slice(this.#taken)
      .map(({ op, set }) =>
        op === "add" ? { add: describeSet(set) } : { remove: describeSet(set) },
      );
    this.#taken = this.sets.length;
    return calls;
  }

  /** What the listener holds, described. */
  holds(): string[] {
    return [...this.held.values()].map(describeEntry).sort();
  }

  lastSet(): AddressSet | undefined {
    return this.sets.at(-1)?.set;
  }
}

/** Log lines captured by level, for tests that assert a skip was logged. */
export class RecordingLogger {
  readonly lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  debug = (message: string, fields?: Record<string, unknown>) =>
    this.#log("debug", message, fields);
  info = (message: string, fields?: Record<string, unknown>) => this.#log("info", message, fields);
  warn = (message: string, fields?: Record<string, unknown>) => this.#log("warn", message, fields);
  error = (message: string, fields?: Record<string, unknown>) =>
    this.#log("error", message, fields);

  messages(level: string): string[] {
    return this.lines.filter((l) => l.level === level).map((l) => l.message);
  }

  #log(level: string, message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level, message, ...(fields === undefined ? {} : { fields }) });
  }
}

export interface Harness {
  cluster: MemoryCluster;
  watcher: EndpointsWatcher;
  metrics: InMemoryMetrics;
  logger: RecordingLogger;
  /** Subscribes a new recording listener (default: web:80, local filter key). */
  listen(options?: { service?: ServiceId; port?: number; key?: FilterKey }): RecordingListener;
}

/** A MemoryCluster with a watcher registered on it (slice mode, IPv6 on, by default). */
export function harness(options: Partial<EndpointsWatcherOptions> = {}): Harness {
  const cluster = new MemoryCluster();
  const metrics = new InMemoryMetrics();
  const logger = new RecordingLogger();
  const watcher = new EndpointsWatcher(cluster, {
    enableEndpointSlices: true,
    enableIPv6: true,
    metrics,
    logger,
    ...options,
  });
  return {
    cluster,
    watcher,
    metrics,
    logger,
    listen({ service: svc = WEB, port = 80, key = LOCAL_KEY } = {}) {
      const listener = new RecordingListener();
      watcher.subscribe(svc, port, key, listener);
      return listener;
    },
  };
}

export interface ServedWebOptions extends Partial<EndpointsWatcherOptions> {
  /** Pods web-1, web-2, … at 10.0.0.1, 10.0.0.2, … */
  pods: number;
  /** Slices web-a, web-b, … each listing one of the first pods, in order. */
  slices: number;
}

/** A harness whose cluster already holds Service web (80 → "http" → 8080), its pods and slices. */
export function servedWeb({ pods, slices, ...options }: ServedWebOptions): Harness {
  const h = harness(options);
  h.cluster.apply(service("web"));
  for (let i = 1; i <= pods; i++) h.cluster.apply(pod(`web-${i}`, `10.0.0.${i}`));
  for (let i = 1; i <= slices; i++) {
    const name = `web-${String.fromCharCode("a".charCodeAt(0) + i - 1)}`;
    h.cluster.apply(slice(name, "web", [podEndpoint(`web-${i}`, `10.0.0.${i}`)]));
  }
  return h;
}
