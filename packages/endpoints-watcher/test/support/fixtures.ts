// A recording listener and harnesses shared by this package's tests (not part of the API); the
// objects come from @destination/test-support/builders.

import type {
  AddressSet,
  AddressSetEntry,
  EndpointsListener,
  NamespacedName,
} from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { NS, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import type { FilterKey } from "../../src/address-filter.js";
import { EndpointsWatcher, type EndpointsWatcherOptions } from "../../src/endpoints-watcher.js";

export const WEB: NamespacedName = { namespace: NS, name: "web" };
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
  listen(options?: { service?: NamespacedName; port?: number; key?: FilterKey }): RecordingListener;
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
  for (let i = 1; i <= pods; i++) h.cluster.apply(pod(`web-${i}`, { ip: `10.0.0.${i}` }));
  for (let i = 1; i <= slices; i++) {
    const name = `web-${String.fromCharCode("a".charCodeAt(0) + i - 1)}`;
    h.cluster.apply(slice(name, "web", [podEndpoint(`web-${i}`, `10.0.0.${i}`)]));
  }
  return h;
}
