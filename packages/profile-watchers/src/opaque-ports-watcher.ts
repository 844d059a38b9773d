import {
  type GaugeMetric,
  InvalidServiceError,
  type LingerTimers,
  type Logger,
  type MetricsRegistry,
  type NamespacedName,
  namespacedNameKey,
  noopMetrics,
  type OpaquePortsListener,
  type Publisher,
  PublisherRegistry,
  SerialQueue,
  type Service,
  SubscriptionList,
  serviceOpaquePorts,
  silentLogger,
} from "@destination/core";

import type { Cluster } from "@destination/k8s-discovery";

import { PortSet } from "./port-set.js";

export interface OpaquePortsWatcherOptions {
  /** `--default-opaque-ports`: the set of a Service without the annotation. */
  defaultOpaquePorts: ReadonlySet<number>;
  logger?: Logger;
  metrics?: MetricsRegistry;
  /** How long a Service without listeners is kept, in ms; 0 (the default) drops it at once. */
  lingerMs?: number;
  timers?: LingerTimers;
}

/** The opaque ports of one subscribed Service and who listens to them. */
class ServiceEntry implements Publisher {
  ports: PortSet;
  readonly subscriptions = new SubscriptionList<OpaquePortsListener>();
  readonly #close: () => void;

  constructor(ports: PortSet, close: () => void) {
    this.ports = ports;
    this.#close = close;
  }

  get listenerCount(): number {
    return this.subscriptions.size;
  }

  close(): void {
    this.#close();
  }
}

const labelsOf = (id: NamespacedName) => ({ namespace: id.namespace, name: id.name });

const idOf = (service: Service): NamespacedName => ({
  namespace: service.metadata.namespace ?? "",
  name: service.metadata.name,
});

/**
 * The opaque ports of Services (`config.linkerd.io/opaque-ports`, else the defaults) as live
 * values (see README "Opaque ports of Services"). A subscriber hears the current set at once,
 * then each change of it.
 */
export class OpaquePortsWatcher {
  readonly #cluster: Pick<Cluster, "services">;
  readonly #defaults: PortSet;
  readonly #logger: Logger;
  readonly #queue: SerialQueue;
  readonly #entries: PublisherRegistry<ServiceEntry>;
  readonly #subscribersGauge: GaugeMetric;
  readonly #removeHandler: () => void;

  constructor(cluster: Pick<Cluster, "services">, options: OpaquePortsWatcherOptions) {
    this.#cluster = cluster;
    this.#defaults = PortSet.of(options.defaultOpaquePorts);
    this.#logger = options.logger ?? silentLogger;
    const metrics = options.metrics ?? noopMetrics;
    this.#queue = new SerialQueue({ logger: this.#logger });
    this.#entries = new PublisherRegistry({
      queue: this.#queue,
      gauge: {
        name: "opaque_ports_publishers",
        help: "Services whose opaque ports have listeners: one publisher each.",
      },
      metrics,
      logger: this.#logger,
      lingerMs: options.lingerMs,
      timers: options.timers,
    });
    this.#subscribersGauge = metrics.gauge(
      "service_subscribers",
      "Listeners of the opaque ports of one Service.",
      ["namespace", "name"],
    );
    this.#removeHandler = cluster.services.addHandler({
      add: (service) => this.#apply(service),
      update: (_oldService, newService) => this.#apply(newService),
      delete: (service) => this.#delete(service),
    });
  }

  /**
   * Registers the listener and calls `updateService` with the Service's current set; when no
   * entry is held, the set is computed from the Service cache. Upstream starts such an entry
   * from the defaults and tells the new listener nothing.
   * Throws `InvalidServiceError` for a cached `ExternalName` Service.
   */
  subscribe(id: NamespacedName, listener: OpaquePortsListener): void {
    const cached = this.#cluster.services.get(id.namespace, id.name);
    if (cached?.spec?.type === "ExternalName") throw new InvalidServiceError(id.namespace, id.name);
    const entry = this.#entries.acquire(
      namespacedNameKey(id),
      () =>
        new ServiceEntry(this.#portsOf(cached) ?? this.#defaults, () =>
          this.#subscribersGauge.remove(labelsOf(id)),
        ),
    );
    const subscription = entry.subscriptions.add(listener);
    this.#subscribersGauge.set(labelsOf(id), entry.subscriptions.size);
    const ports = entry.ports;
    this.#queue.deliver([subscription], (l) => l.updateService(ports), labelsOf(id));
  }

  /**
   * Removes one registration of the listener. With the last one gone the entry and its gauge
   * series go too (after the linger, if any); a later subscriber gets its set from the cache.
   */
  unsubscribe(id: NamespacedName, listener: OpaquePortsListener): void {
    const key = namespacedNameKey(id);
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#logger.error("cannot unsubscribe from an unknown service", labelsOf(id));
      return;
    }
    if (entry.subscriptions.remove(listener) === undefined) {
      this.#logger.warn("unsubscribe of a listener that is not subscribed", labelsOf(id));
      return;
    }
    this.#subscribersGauge.set(labelsOf(id), entry.subscriptions.size);
    this.#entries.release(key);
  }

  /** Stops listening to the cache; subscribers keep their last set and hear nothing more. */
  stop(): void {
    this.#removeHandler();
  }

  /**
   * Listeners hear a change of the set. A Service nobody listens to has no entry: its
   * first subscriber reads the set from the cache.
   */
  #apply(service: Service): void {
    const entry = this.#entries.get(namespacedNameKey(idOf(service)));
    if (entry === undefined) return;
    const ports = this.#portsOf(service);
    if (ports === undefined) return;
    this.#set(entry, ports, idOf(service));
  }

  /** A deleted Service falls back to the defaults; its entry stays while listened to. */
  #delete(service: Service): void {
    const entry = this.#entries.get(namespacedNameKey(idOf(service)));
    if (entry !== undefined) this.#set(entry, this.#defaults, idOf(service));
  }

  #set(entry: ServiceEntry, ports: PortSet, id: NamespacedName): void {
    if (entry.ports.equals(ports)) return;
    entry.ports = ports;
    this.#queue.deliver(entry.subscriptions, (l) => l.updateService(ports), labelsOf(id));
  }

  /**
   * The annotation read by the shared parser; undefined (logged) for an object too malformed to
   * read, whose event is then ignored so one bad Service stops nothing else. A missing Service
   * has the defaults.
   */
  #portsOf(service: Service | undefined): PortSet | undefined {
    try {
      return PortSet.of(serviceOpaquePorts(service, this.#defaults, this.#logger));
    } catch (err) {
      this.#logger.error("cannot read the opaque ports of a service, event ignored", {
        ...(service === undefined ? {} : idOf(service)),
        error: String(err),
      });
      return undefined;
    }
  }
}
