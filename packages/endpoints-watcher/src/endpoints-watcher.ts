import {
  type EndpointSlice,
  type Endpoints,
  type EndpointsListener,
  InvalidServiceError,
  type KubeObject,
  type LingerTimers,
  type Logger,
  type MetricsRegistry,
  type NamespacedName,
  type Node,
  namespacedNameKey,
  nodeZoneOf,
  noopMetrics,
  type PartialObjectMetadata,
  PublisherRegistry,
  SerialQueue,
  type Server,
  type Service,
  silentLogger,
} from "@destination/core";

import { type Cluster, keyOf } from "@destination/k8s-discovery";

import type { FilterKey } from "./address-filter.js";

import { podChangedForAddresses } from "./pod-address-change.js";

import type { PublisherContext } from "./port-publisher.js";

import { ServicePublisher } from "./service-publisher.js";

import { sliceServiceName } from "./slice-addresses.js";

import {
  type AddressSource,
  type ReferencedKind,
  SourceReferences,
  sourceOf,
} from "./source-references.js";

import { EndpointsWatcherMetrics } from "./watcher-metrics.js";

export interface EndpointsWatcherOptions {
  /** Read EndpointSlices (the default mode); false reads core/v1 Endpoints instead. */
  enableEndpointSlices: boolean;
  /** Serve dual-stack workloads over IPv6 only; false drops IPv6 addresses. */
  enableIPv6: boolean;
  logger?: Logger;
  metrics?: MetricsRegistry;
  /** How long a service without listeners is kept, in ms; 0 (the default) drops it at once. */
  lingerMs?: number;
  timers?: LingerTimers;
}

/**
 * Services, their EndpointSlices (or Endpoints) and the Servers that mark ports opaque, folded
 * into one live address set per subscribed service port and filter key.
 *
 * Listeners get `add` (new addresses, or changed ones to upsert by ID) and `remove` (gone
 * addresses, as last announced). Both are immutable and never empty. Calls are synchronous,
 * from inside `subscribe` or the cache event that caused them; a listener that calls back into
 * the watcher is served after the current event: every event and call is one task of a single
 * queue, run to completion.
 *
 * Only subscribed services are kept (one `ServicePublisher` each, dropped with its last
 * listener); events about other services only update what every publisher shares.
 */
export class EndpointsWatcher {
  readonly #cluster: Cluster;
  readonly #logger: Logger;
  readonly #metrics: EndpointsWatcherMetrics;
  readonly #ctx: PublisherContext;
  readonly #queue: SerialQueue;
  readonly #publishers: PublisherRegistry<ServicePublisher>;
  readonly #sliceRecency = new Map<string, number>();
  readonly #references = new SourceReferences();
  #lastSliceChange = 0;
  readonly #unregister: (() => void)[] = [];

  /**
   * Registers the cache handlers of the chosen mode (slices or Endpoints, never both); create it
   * before `cluster.start()` so that it sees the initial list.
   */
  constructor(cluster: Cluster, options: EndpointsWatcherOptions) {
    this.#cluster = cluster;
    this.#logger = options.logger ?? silentLogger;
    this.#metrics = new EndpointsWatcherMetrics(options.metrics ?? noopMetrics);
    this.#queue = new SerialQueue({ logger: this.#logger });
    this.#publishers = new PublisherRegistry({
      queue: this.#queue,
      gauge: {
        name: "endpoints_publishers",
        help: "Services with endpoints listeners: one publisher each.",
        labels: { cluster: cluster.name },
      },
      metrics: options.metrics ?? noopMetrics,
      logger: this.#logger,
      lingerMs: options.lingerMs,
      timers: options.timers,
    });
    this.#ctx = {
      cluster,
      logger: this.#logger,
      metrics: this.#metrics,
      enableEndpointSlices: options.enableEndpointSlices,
      enableIPv6: options.enableIPv6,
      sliceRecency: (key) => this.#sliceRecency.get(key) ?? 0,
      references: this.#references,
    };

    this.#unregister.push(
      cluster.services.addHandler({
        add: (svc) => this.#handle("Service add", svc, () => this.#serviceChanged(svc)),
        update: (_old, svc) => this.#handle("Service update", svc, () => this.#serviceChanged(svc)),
        delete: (svc) =>
          this.#handle("Service delete", svc, () => this.#publisherOf(svc)?.serviceDeleted()),
      }),
      cluster.servers.addHandler({
        add: (srv) => this.#handle("Server add", srv, () => this.#serverChanged(null, srv)),
        update: (old, srv) =>
          this.#handle("Server update", srv, () => this.#serverChanged(old, srv)),
        delete: (srv) => this.#handle("Server delete", srv, () => this.#serverChanged(srv, null)),
      }),
      // Objects an address is built from: the slices that read them are converted again when
      // they arrive, change or go, so the result is what the slices and the objects they name
      // say now, whichever the cache heard of first (see "Ordering" in the README).
      cluster.pods.addHandler({
        add: (pod) => this.#handle("Pod add", pod, () => this.#referenceChanged("Pod", pod)),
        update: (old, pod) =>
          this.#handle("Pod update", pod, () => {
            if (
              this.#isRead("Pod", pod) &&
              podChangedForAddresses(old, pod, () =>
                cluster.servers.list(pod.metadata.namespace ?? ""),
              )
            ) {
              this.#referenceChanged("Pod", pod);
            }
          }),
        delete: (pod) => this.#handle("Pod delete", pod, () => this.#referenceChanged("Pod", pod)),
      }),
      cluster.externalWorkloads.addHandler({
        add: (ew) =>
          this.#handle("ExternalWorkload add", ew, () =>
            this.#referenceChanged("ExternalWorkload", ew),
          ),
        update: (_old, ew) =>
          this.#handle("ExternalWorkload update", ew, () =>
            this.#referenceChanged("ExternalWorkload", ew),
          ),
        delete: (ew) =>
          this.#handle("ExternalWorkload delete", ew, () =>
            this.#referenceChanged("ExternalWorkload", ew),
          ),
      }),
      cluster.replicaSets.addHandler(this.#ownerHandler("ReplicaSet")),
      cluster.jobs.addHandler(this.#ownerHandler("Job")),
      cluster.nodes.addHandler({
        add: (node) => this.#handle("Node add", node, () => this.#nodeChanged(null, node)),
        update: (old, node) =>
          this.#handle("Node update", node, () => this.#nodeChanged(old, node)),
      }),
    );
    if (options.enableEndpointSlices) {
      this.#unregister.push(
        cluster.endpointSlices.addHandler({
          add: (slice) => this.#handle("EndpointSlice add", slice, () => this.#sliceAdded(slice)),
          update: (old, slice) =>
            this.#handle("EndpointSlice update", slice, () => this.#sliceUpdated(old, slice)),
          delete: (slice) =>
            this.#handle("EndpointSlice delete", slice, () => this.#sliceDeleted(slice)),
        }),
      );
    } else {
      this.#unregister.push(
        cluster.endpoints.addHandler({
          add: (eps) => this.#handle("Endpoints add", eps, () => this.#endpointsChanged(eps)),
          update: (_old, eps) =>
            this.#handle("Endpoints update", eps, () => this.#endpointsChanged(eps)),
          delete: (eps) =>
            this.#handle("Endpoints delete", eps, () => {
              this.#references.forget(sourceOf("Endpoints", eps));
              this.#publisherOf(eps)?.endpointsDeleted();
            }),
        }),
      );
    }
  }

  /**
   * Starts watching a service port for one listener. Before returning, the listener gets the
   * current filtered set as one `add`, or nothing when there is none; a missing service is
   * fine (it is served once it appears). Throws InvalidServiceError for a cached ExternalName
   * Service.
   */
  subscribe(
    service: NamespacedName,
    port: number,
    key: FilterKey,
    listener: EndpointsListener,
  ): void {
    const svc = this.#cluster.services.get(service.namespace, service.name);
    if (svc?.spec?.type === "ExternalName") {
      throw new InvalidServiceError(service.namespace, service.name);
    }
    const id = namespacedNameKey(service);
    this.#queue.run(() => {
      const publisher = this.#publishers.acquire(
        id,
        () => new ServicePublisher({ namespace: service.namespace, name: service.name }, this.#ctx),
      );
      try {
        publisher.subscribe(port, key, listener);
      } finally {
        // A subscription that failed leaves no publisher behind.
        this.#publishers.release(id);
      }
    });
  }

  /**
   * Stops one subscription (by listener identity). With `withRemove` the listener is first
   * told to remove everything it holds (nothing is sent when it holds nothing).
   */
  unsubscribe(
    service: NamespacedName,
    port: number,
    key: FilterKey,
    listener: EndpointsListener,
    withRemove = false,
  ): void {
    this.#queue.run(() => {
      const id = namespacedNameKey(service);
      const publisher = this.#publishers.get(id);
      if (publisher === undefined) {
        this.#logger.error("Cannot unsubscribe from unknown service", {
          service: namespacedNameKey(service),
          port,
        });
        return;
      }
      publisher.unsubscribe(port, key, listener, withRemove);
      this.#publishers.release(id);
    });
  }

  /** Removes every cache handler; subscriptions stay but hear nothing more. */
  stop(): void {
    for (const unregister of this.#unregister.splice(0)) unregister();
  }

  /** Listeners subscribed to a service (or to one of its ports). */
  subscriberCount(service: NamespacedName, port?: number): number {
    const publisher = this.#publishers.get(namespacedNameKey(service));
    if (publisher === undefined) return 0;
    return port === undefined ? publisher.listenerCount : publisher.portListenerCount(port);
  }

  /** The ports of a service that have listeners, ascending. */
  subscribedPorts(service: NamespacedName): number[] {
    return this.#publishers.get(namespacedNameKey(service))?.ports() ?? [];
  }

  /** One bad object is logged and skipped; it never stops the cache's other handlers. */
  #handle(event: string, obj: KubeObject, task: () => void): void {
    this.#queue.run(() => {
      try {
        task();
      } catch (err) {
        this.#logger.error(`${event} failed; object skipped`, {
          object: keyOf(obj),
          error: String(err),
        });
      }
    });
  }

  /** An owner's add, or an update that re-parents it, re-reads the owner labels of its pods. */
  #ownerHandler(kind: "ReplicaSet" | "Job") {
    return {
      add: (owner: PartialObjectMetadata) =>
        this.#handle(`${kind} add`, owner, () => this.#referenceChanged(kind, owner)),
      update: (old: PartialObjectMetadata, owner: PartialObjectMetadata) =>
        this.#handle(`${kind} update`, owner, () => {
          if (
            this.#isRead(kind, owner) &&
            !sameJson(old.metadata.ownerReferences, owner.metadata.ownerReferences)
          ) {
            this.#referenceChanged(kind, owner);
          }
        }),
    };
  }

  #isRead(kind: ReferencedKind, obj: KubeObject): boolean {
    return this.#references.isRead(kind, obj.metadata.namespace ?? "", obj.metadata.name);
  }

  /** Converts again every source whose last conversion read this object. */
  #referenceChanged(kind: ReferencedKind, obj: KubeObject): void {
    const { namespace = "", name } = obj.metadata;
    for (const source of this.#references.sourcesReading(kind, namespace, name)) {
      this.#reconvert(source);
    }
  }

  /**
   * A source converted again from its cached version, through the same path as an update of
   * it (one `add` for what is new, with every field), except that it does not count as a change
   * of the slice for deciding which slice's fields win.
   */
  #reconvert(source: AddressSource): void {
    this.#references.forget(source);
    if (source.kind === "Endpoints") {
      const endpoints = this.#cluster.endpoints.get(source.namespace, source.name);
      if (endpoints !== undefined) this.#publisherOf(endpoints)?.endpointsChanged(endpoints);
      return;
    }
    const slice = this.#cluster.endpointSlices.get(source.namespace, source.name);
    if (slice === undefined) return;
    const service = this.#sliceService(slice);
    if (service !== undefined)
      this.#publishers.get(namespacedNameKey(service))?.sliceUpdated(slice);
  }

  /** A node arrived or its zone changed: zone-hint filtering of its subscribers follows. */
  #nodeChanged(oldNode: Node | null, node: Node): void {
    const zone = nodeZoneOf(node);
    if (oldNode !== null && nodeZoneOf(oldNode) === zone) return;
    for (const publisher of this.#publishers.values()) {
      publisher.nodeZoneChanged(node.metadata.name, zone);
    }
  }

  #publisherOf(obj: KubeObject): ServicePublisher | undefined {
    return this.#publishers.get(namespacedNameKey(namespacedNameOf(obj)));
  }

  #serviceChanged(svc: Service): void {
    this.#publisherOf(svc)?.serviceChanged(svc);
  }

  #endpointsChanged(endpoints: Endpoints): void {
    this.#references.forget(sourceOf("Endpoints", endpoints));
    this.#publisherOf(endpoints)?.endpointsChanged(endpoints);
  }

  /**
   * A Server's add and delete reach every subscribed service; an update only the services of
   * its own namespace, as upstream (#12040).
   */
  #serverChanged(oldServer: Server | null, newServer: Server | null): void {
    const namespace =
      oldServer !== null && newServer !== null ? newServer.metadata.namespace : undefined;
    for (const publisher of this.#publishers.values()) {
      if (namespace !== undefined && publisher.id.namespace !== namespace) continue;
      publisher.serverChanged(oldServer, newServer);
    }
  }

  #sliceAdded(slice: EndpointSlice): void {
    this.#references.forget(sourceOf("EndpointSlice", slice));
    const service = this.#sliceService(slice);
    this.#sliceRecency.set(keyOf(slice), ++this.#lastSliceChange);
    if (service === undefined) return;
    this.#publishers.get(namespacedNameKey(service))?.sliceAdded(slice);
  }

  /**
   * A slice whose service changed leaves the old service as if deleted there (upstream
   * kept its addresses in the old service until a resync of nothing: a leak).
   */
  #sliceUpdated(oldSlice: EndpointSlice, slice: EndpointSlice): void {
    const key = keyOf(slice);
    this.#references.forget(sourceOf("EndpointSlice", slice));
    if (hasChanged(oldSlice, slice)) this.#sliceRecency.set(key, ++this.#lastSliceChange);
    const previous = sliceServiceName(oldSlice);
    const service = this.#sliceService(slice);
    if (previous !== undefined && previous !== service?.name) {
      this.#publishers
        .get(namespacedNameKey({ namespace: slice.metadata.namespace ?? "", name: previous }))
        ?.sliceDeleted(key);
    }
    if (service === undefined) return;
    this.#publishers.get(namespacedNameKey(service))?.sliceUpdated(slice);
  }

  /**
   * The slice takes away what it had contributed, as recorded per slice, not what converting it
   * again would find (its pods may already be gone from the cache).
   */
  #sliceDeleted(slice: EndpointSlice): void {
    const key = keyOf(slice);
    this.#references.forget(sourceOf("EndpointSlice", slice));
    this.#sliceRecency.delete(key);
    const service = this.#sliceService(slice);
    if (service === undefined) return;
    this.#publishers.get(namespacedNameKey(service))?.sliceDeleted(key);
  }

  /** The slice's service, or undefined (logged) for a slice that names none. */
  #sliceService(slice: EndpointSlice): NamespacedName | undefined {
    const name = sliceServiceName(slice);
    if (name === undefined) {
      this.#logger.warn("EndpointSlice names no Service (label or ownerReference); skipped", {
        slice: keyOf(slice),
      });
      return undefined;
    }
    return { namespace: slice.metadata.namespace ?? "", name };
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function namespacedNameOf(obj: KubeObject): NamespacedName {
  return { namespace: obj.metadata.namespace ?? "", name: obj.metadata.name };
}

/** A resync hands the same object twice; a real change has a new resourceVersion. */
function hasChanged(oldObj: KubeObject, newObj: KubeObject): boolean {
  const before = oldObj.metadata.resourceVersion;
  const after = newObj.metadata.resourceVersion;
  return before === undefined || after === undefined ? oldObj !== newObj : before !== after;
}
