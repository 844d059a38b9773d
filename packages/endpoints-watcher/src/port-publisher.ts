import {
  type Address,
  type EndpointSlice,
  type Endpoints,
  type EndpointsListener,
  type NamespacedName,
  nodeZoneOf,
  type Server,
  type Service,
} from "@destination/core";

import { keyOf, SERVICE_NAME_LABEL } from "@destination/k8s-discovery";

import { AddressContributions } from "./address-contributions.js";
import { type FilterKey, filterKeyString } from "./address-filter.js";
import { opacityFromServers, serverSelectsAddress } from "./address-opacity.js";
import { EMPTY_LABELS, frozenEntry } from "./address-snapshot.js";
import { type ConversionContext, serverLister } from "./conversion-context.js";
import { endpointsAddresses } from "./endpoints-addresses.js";

import { FilteredListenerGroup, type PortAddresses } from "./filtered-listener-group.js";

import { addressSetLabels } from "./mirror-metadata.js";

import { sliceAddresses } from "./slice-addresses.js";

import { type SourceReferences, sourceOf } from "./source-references.js";

import { serviceTargetPort, type TargetPort } from "./target-port.js";

import type { EndpointsWatcherMetrics } from "./watcher-metrics.js";

/** The one source of a port in Endpoints mode. */
const ENDPOINTS_SOURCE = "Endpoints";

/** What every publisher of one watcher shares. */
export interface PublisherContext extends ConversionContext {
  readonly metrics: EndpointsWatcherMetrics;
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  /**
   * When a slice last changed, in event order; 0 when never seen. Where two slices list one
   * endpoint, the most recently changed one's fields are served.
   */
  sliceRecency(sliceKey: string): number;
  /** What each converted slice or Endpoints object read, so it is converted again on arrival. */
  readonly references: SourceReferences;
}

/**
 * One subscribed port of a service: its target port, the addresses each slice (or the
 * Endpoints object) contributes, and the listener groups that watch their union.
 */
export class PortPublisher {
  readonly #service: NamespacedName;
  readonly #srcPort: number;
  readonly #ctx: PublisherContext;
  #targetPort: TargetPort;
  #exists: boolean;
  /** Set from the Service's deletion until it is cached again. */
  #serviceDeleted = false;
  #localTrafficPolicy: boolean;
  readonly #sources = new AddressContributions();
  #labels: Readonly<Record<string, string>> = EMPTY_LABELS;
  #current: PortAddresses = { addresses: new Map(), labels: EMPTY_LABELS };
  readonly #groups = new Map<string, FilteredListenerGroup>();

  /**
   * Resolves the target port and primes from the cached slices (or Endpoints object); no group
   * exists yet, so nothing is published.
   */
  constructor(
    service: NamespacedName,
    srcPort: number,
    localTrafficPolicy: boolean,
    ctx: PublisherContext,
  ) {
    this.#service = service;
    this.#srcPort = srcPort;
    this.#ctx = ctx;
    this.#localTrafficPolicy = localTrafficPolicy;
    const svc = ctx.cluster.services.get(service.namespace, service.name);
    this.#targetPort = serviceTargetPort(svc, srcPort);
    this.#exists = svc !== undefined;
    if (ctx.enableEndpointSlices) {
      this.#primeFromSlices();
    } else {
      const endpoints = ctx.cluster.endpoints.get(service.namespace, service.name);
      if (endpoints !== undefined) this.endpointsChanged(endpoints);
    }
  }

  get listenerCount(): number {
    let count = 0;
    for (const group of this.#groups.values()) count += group.listenerCount;
    return count;
  }

  subscribe(key: FilterKey, listener: EndpointsListener): void {
    const id = filterKeyString(key);
    let group = this.#groups.get(id);
    if (group === undefined) {
      group = this.#newGroup(key);
      this.#groups.set(id, group);
    }
    const hasAddresses = this.#exists && this.#current.addresses.size > 0;
    group.join(listener, hasAddresses ? this.#current : undefined, this.#exists);
  }

  /** Returns whether the listener was subscribed under this key. */
  unsubscribe(key: FilterKey, listener: EndpointsListener, withRemove: boolean): boolean {
    const id = filterKeyString(key);
    const group = this.#groups.get(id);
    if (group === undefined || !group.leave(listener, withRemove)) return false;
    if (group.listenerCount === 0) {
      group.close();
      this.#groups.delete(id);
    }
    return true;
  }

  /** A slice of the service appeared: its addresses join the rest, its labels become the set's. */
  sliceAdded(slice: EndpointSlice): void {
    if (!this.#putSlice(slice)) return;
    this.#labels = sliceLabels(slice);
    this.#exists = true;
    this.#publish();
  }

  /** A slice changed: its contribution is replaced (the set's labels stay, as upstream has it). */
  sliceUpdated(slice: EndpointSlice): void {
    if (!this.#putSlice(slice)) return;
    this.#exists = true;
    this.#publish();
  }

  /**
   * A slice went; exactly what it contributed goes with it (an endpoint another slice still
   * lists stays). An empty result counts as "does not exist", as upstream has it.
   */
  sliceDeleted(sliceKey: string): void {
    this.#sources.delete(sliceKey);
    this.#publish();
    if (this.#current.addresses.size === 0) this.noEndpoints(false);
    else this.#exists = true;
  }

  /**
   * The Endpoints object was added or changed. With no ready address left every group removes
   * what it announced, yet the service still exists.
   */
  endpointsChanged(endpoints: Endpoints): void {
    let entries: ReturnType<typeof endpointsAddresses>;
    try {
      entries = endpointsAddresses(
        endpoints,
        this.#targetPort,
        this.#srcPort,
        this.#ctx,
        this.#ctx.references.recorder(sourceOf("Endpoints", endpoints)),
      );
    } catch (err) {
      // A malformed object is logged and changes nothing.
      this.#ctx.logger.error("malformed Endpoints skipped", {
        endpoints: keyOf(endpoints),
        error: String(err),
      });
      return;
    }
    this.#labels = addressSetLabels(endpoints, endpoints.metadata.name);
    if (entries.size === 0) {
      this.noEndpoints(true);
    } else {
      this.#sources.set(ENDPOINTS_SOURCE, entries, 0);
      this.#publish();
    }
    this.#exists = true;
  }

  /**
   * Every group removes what it announced; listeners stay subscribed and are served again by
   * the next slice or Endpoints event.
   */
  noEndpoints(exists: boolean): void {
    this.#exists = exists;
    this.#sources.clear();
    this.#recompute();
    for (const group of this.#groups.values()) group.noEndpoints(exists);
  }

  /** The Service went; what its slices contributed goes with it until it returns. */
  serviceDeleted(): void {
    this.#serviceDeleted = true;
    this.noEndpoints(false);
  }

  /**
   * A new port mapping re-primes every slice; a traffic-policy change re-filters. A
   * Service that comes back after its deletion re-primes too (fix: upstream waited for the next
   * slice event, which may never come, leaving the port without the endpoints its slices list).
   */
  serviceChanged(service: Service, localTrafficPolicy: boolean): void {
    const target = serviceTargetPort(service, this.#srcPort);
    if (target !== this.#targetPort || this.#serviceDeleted) {
      this.#targetPort = target;
      this.#serviceDeleted = false;
      this.#remap();
    }
    if (localTrafficPolicy !== this.#localTrafficPolicy) {
      this.#localTrafficPolicy = localTrafficPolicy;
      for (const group of this.#groups.values()) group.setLocalTrafficPolicy(localTrafficPolicy);
    }
  }

  /**
   * Addresses the old or new Server selects get their opacity recomputed from all
   * Servers of their namespace (fix: upstream took the one Server's word for it); listeners
   * hear only about flips.
   */
  serverChanged(oldServer: Server | null, newServer: Server | null): void {
    const { logger } = this.#ctx;
    const servers = serverLister(this.#ctx.cluster);
    const concerned = (address: Address) =>
      (oldServer !== null && serverSelectsAddress(oldServer, address, logger)) ||
      (newServer !== null && serverSelectsAddress(newServer, address, logger));
    // A Server selects workloads of its own namespace only: the others are passed over
    // before anything is looked up, since every subscribed service hears of every Server.
    const namespaces = [oldServer, newServer].flatMap((s) =>
      s === null ? [] : [s.metadata.namespace ?? ""],
    );
    const held = this.#sources.workloadNamespaces();
    if (!namespaces.some((namespace) => held.has(namespace))) return;
    const before = this.#current.addresses;
    let flipped = false;
    this.#sources.replaceEntries((entry) => {
      const namespace =
        entry.address.pod?.metadata.namespace ?? entry.address.externalWorkload?.metadata.namespace;
      if (namespace === undefined || !namespaces.includes(namespace)) return entry;
      // Selectors read the pod's labels as cached now: an edit of labels no address read did
      // not convert the slice again (pod-address-change.ts).
      const address = withCachedPod(entry.address, this.#ctx.cluster);
      if (!concerned(address)) return entry;
      const opaque = opacityFromServers(address, servers(namespace), logger);
      if (opaque === undefined || opaque === address.opaqueProtocol) return entry;
      flipped = true;
      return frozenEntry(entry.id, { ...address, opaqueProtocol: opaque });
    });
    if (!flipped) return;
    this.#recompute();
    for (const [key, entry] of this.#current.addresses) {
      if (before.get(key)?.address.opaqueProtocol !== entry.address.opaqueProtocol) {
        this.#publish();
        return;
      }
    }
  }

  /** A node's zone is now `zone`: the groups of subscribers on that node re-filter. */
  nodeZoneChanged(nodeName: string, zone: string): void {
    for (const group of this.#groups.values()) {
      if (group.key.enableEndpointFiltering && group.key.nodeName === nodeName) {
        group.setNodeZone(zone);
      }
    }
  }

  /**
   * Rebuilds every contribution from the service's slices in the cache with the current target
   * port, as adding them one by one would; returns how many there were. The cache finds slices
   * by their service-name label, so slices owned only by reference are not found here.
   */
  #primeFromSlices(): number {
    const { namespace, name } = this.#service;
    this.#sources.clear();
    const slices = this.#ctx.cluster.indexes.endpointSlicesOfService(namespace, name);
    for (const slice of slices) {
      if (!this.#putSlice(slice)) continue;
      this.#labels = sliceLabels(slice);
      this.#exists = true;
    }
    this.#recompute();
    return slices.length;
  }

  /**
   * A new port mapping: rebuild every slice's contribution with the new target port, then publish
   * once (upstream published per slice, with transient churn). With no slices nothing is
   * published, as upstream; Endpoints mode without an Endpoints object only logs.
   */
  #remap(): void {
    const { cluster, logger } = this.#ctx;
    const { namespace, name } = this.#service;
    if (this.#ctx.enableEndpointSlices) {
      if (this.#primeFromSlices() > 0) this.#publish();
      return;
    }
    const endpoints = cluster.endpoints.get(namespace, name);
    if (endpoints === undefined) {
      logger.debug("port remapped but the service has no Endpoints", {
        service: `${namespace}/${name}`,
        port: this.#srcPort,
      });
      return;
    }
    this.endpointsChanged(endpoints);
  }

  /** Records a slice's contribution; a slice that cannot be read is logged and left as it was. */
  #putSlice(slice: EndpointSlice): boolean {
    const key = keyOf(slice);
    try {
      const entries = sliceAddresses(
        slice,
        this.#service.name,
        this.#targetPort,
        this.#srcPort,
        this.#ctx,
        this.#ctx.references.recorder(sourceOf("EndpointSlice", slice)),
      );
      this.#sources.set(key, entries, this.#ctx.sliceRecency(key));
      return true;
    } catch (err) {
      this.#ctx.logger.error("malformed EndpointSlice skipped", { slice: key, error: String(err) });
      return false;
    }
  }

  #recompute(): void {
    this.#current = { addresses: this.#sources.union(), labels: this.#labels };
  }

  #publish(): void {
    this.#recompute();
    for (const group of this.#groups.values()) group.publishDiff(this.#current);
  }

  /**
   * The subscriber's node zone (for zone hints) is read here, later only when the Node changes;
   * the group's metric series start here.
   */
  #newGroup(key: FilterKey): FilteredListenerGroup {
    const { cluster, logger, metrics } = this.#ctx;
    let nodeZone = "";
    if (key.enableEndpointFiltering && key.nodeName !== "") {
      const node = cluster.nodes.get("", key.nodeName);
      if (node === undefined) {
        logger.error("subscriber's node is not in the cache; no zone for topology hints", {
          node: key.nodeName,
        });
      } else {
        nodeZone = nodeZoneOf(node);
      }
    }
    return new FilteredListenerGroup({
      key,
      nodeZone,
      enableIPv6: this.#ctx.enableIPv6,
      localTrafficPolicy: this.#localTrafficPolicy,
      logger,
      series: metrics.groupSeries({
        cluster: cluster.name,
        namespace: this.#service.namespace,
        service: this.#service.name,
        port: String(this.#srcPort),
        hostname: key.hostname,
        nodename: key.nodeName,
      }),
    });
  }
}

/** A slice's set labels: the service label is read as written (possibly absent, then ""). */
function sliceLabels(slice: EndpointSlice): Record<string, string> {
  return addressSetLabels(slice, slice.metadata.labels?.[SERVICE_NAME_LABEL] ?? "");
}

/** The address with its pod as the cache holds it now, when that is the same pod (same uid). */
function withCachedPod(address: Address, cluster: PublisherContext["cluster"]): Address {
  const pod = address.pod;
  if (pod === null) return address;
  const cached = cluster.pods.get(pod.metadata.namespace ?? "", pod.metadata.name);
  if (cached === undefined || cached === pod || cached.metadata.uid !== pod.metadata.uid) {
    return address;
  }
  return { ...address, pod: cached };
}
