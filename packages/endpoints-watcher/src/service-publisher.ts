import type {
  EndpointSlice,
  Endpoints,
  EndpointsListener,
  NamespacedName,
  Publisher,
  Server,
  Service,
} from "@destination/core";

import type { FilterKey } from "./address-filter.js";

import { PortPublisher, type PublisherContext } from "./port-publisher.js";

/**
 * One subscribed service's ports. It lives while it has listeners: its port publishers
 * go with their last listener, and the watcher drops it with the last port. Everything it holds
 * is read from the caches when it is created, so a service subscribed again starts exactly as a
 * first subscription does.
 */
export class ServicePublisher implements Publisher {
  readonly id: NamespacedName;
  readonly #ctx: PublisherContext;
  #localTrafficPolicy: boolean;
  readonly #ports = new Map<number, PortPublisher>();

  constructor(id: NamespacedName, ctx: PublisherContext) {
    this.id = id;
    this.#ctx = ctx;
    // Later Service events keep it current; until then the cache has what they said.
    this.#localTrafficPolicy = localTrafficPolicy(ctx.cluster.services.get(id.namespace, id.name));
  }

  /** The subscribed ports, ascending. */
  ports(): number[] {
    return [...this.#ports.keys()].sort((a, b) => a - b);
  }

  /** Listeners of every port. */
  get listenerCount(): number {
    let count = 0;
    for (const publisher of this.#ports.values()) count += publisher.listenerCount;
    return count;
  }

  portListenerCount(port: number): number {
    return this.#ports.get(port)?.listenerCount ?? 0;
  }

  /** Dropped with its last port, so no port publisher (nor series) is left to close. */
  close(): void {}

  subscribe(port: number, key: FilterKey, listener: EndpointsListener): void {
    let publisher = this.#ports.get(port);
    if (publisher === undefined) {
      publisher = new PortPublisher(this.id, port, this.#localTrafficPolicy, this.#ctx);
      this.#ports.set(port, publisher);
    }
    publisher.subscribe(key, listener);
  }

  unsubscribe(
    port: number,
    key: FilterKey,
    listener: EndpointsListener,
    withRemove: boolean,
  ): void {
    const publisher = this.#ports.get(port);
    if (publisher === undefined) return;
    publisher.unsubscribe(key, listener, withRemove);
    if (publisher.listenerCount === 0) this.#ports.delete(port);
  }

  /** A Service add or update: ports re-map when their target changed; traffic policy follows. */
  serviceChanged(service: Service): void {
    this.#localTrafficPolicy = localTrafficPolicy(service);
    for (const publisher of this.#ports.values()) {
      publisher.serviceChanged(service, this.#localTrafficPolicy);
    }
  }

  /** The Service went: every port removes what it announced; listeners stay subscribed. */
  serviceDeleted(): void {
    for (const publisher of this.#ports.values()) publisher.serviceDeleted();
  }

  sliceAdded(slice: EndpointSlice): void {
    for (const publisher of this.#ports.values()) publisher.sliceAdded(slice);
  }

  sliceUpdated(slice: EndpointSlice): void {
    for (const publisher of this.#ports.values()) publisher.sliceUpdated(slice);
  }

  sliceDeleted(sliceKey: string): void {
    for (const publisher of this.#ports.values()) publisher.sliceDeleted(sliceKey);
  }

  endpointsChanged(endpoints: Endpoints): void {
    for (const publisher of this.#ports.values()) publisher.endpointsChanged(endpoints);
  }

  /** The Endpoints object went: the same as the Service going, for every port. */
  endpointsDeleted(): void {
    for (const publisher of this.#ports.values()) publisher.noEndpoints(false);
  }

  nodeZoneChanged(nodeName: string, zone: string): void {
    for (const publisher of this.#ports.values()) publisher.nodeZoneChanged(nodeName, zone);
  }

  serverChanged(oldServer: Server | null, newServer: Server | null): void {
    for (const publisher of this.#ports.values()) publisher.serverChanged(oldServer, newServer);
  }
}

function localTrafficPolicy(service: Service | undefined): boolean {
  return service?.spec?.internalTrafficPolicy === "Local";
}
