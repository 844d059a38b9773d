import type {
  EndpointSlice,
  Endpoints,
  EndpointsListener,
  Server,
  Service,
} from "@destination/k8s-discovery";
import type { FilterKey } from "./filter-key.js";
import { PortPublisher, type PublisherContext } from "./port-publisher.js";
import type { ServiceId } from "./service-id.js";

/**
 * One service's subscribed ports (§3.1). Kept for as long as the watcher lives (E-2); its port
 * publishers go with their last listener.
 */
export class ServicePublisher {
  readonly id: ServiceId;
  readonly #ctx: PublisherContext;
  #localTrafficPolicy: boolean;
  readonly #ports = new Map<number, PortPublisher>();

  constructor(id: ServiceId, ctx: PublisherContext) {
    this.id = id;
    this.#ctx = ctx;
    // The Service's own add event would set this too; reading it here also covers a watcher
    // created after the cache was filled.
    this.#localTrafficPolicy = localTrafficPolicy(ctx.cluster.services.get(id.namespace, id.name));
  }

  /** The subscribed ports, ascending. */
  ports(): number[] {
    return [...this.#ports.keys()].sort((a, b) => a - b);
  }

  listenerCount(port?: number): number {
    if (port !== undefined) return this.#ports.get(port)?.listenerCount ?? 0;
    let count = 0;
    for (const publisher of this.#ports.values()) count += publisher.listenerCount;
    return count;
  }

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

  /** E-22 */
  serviceChanged(service: Service): void {
    this.#localTrafficPolicy = localTrafficPolicy(service);
    for (const publisher of this.#ports.values()) {
      publisher.serviceChanged(service, this.#localTrafficPolicy);
    }
  }

  /** E-24 */
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

  /** E-24 for the Endpoints object. */
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
