import type { Address, AddressSet } from "./address.js";
import type { ServiceProfile } from "./objects/linkerd.js";

// Listener contracts shared by the watchers and the translators (README "Listener contracts").
// Listeners are called synchronously from the watcher's event task and must neither block nor
// call back into the watcher, which would hold up every other subscriber; a stream hands the
// value to its own bounded queue.

/** Get: additions (or changed addresses, as upserts) and removals of one filtered set. */
export interface EndpointsListener {
  add(set: AddressSet): void;
  remove(set: AddressSet): void;
}

/** GetProfile on ip:port: the current address behind it, a fresh copy per call. */
export interface WorkloadListener {
  update(address: Address): void;
}

/** GetProfile on a service: the current ServiceProfile, or null when there is none. */
export interface ProfileListener {
  update(profile: ServiceProfile | null): void;
}

/** GetProfile on a service: the opaque ports of the service (annotation or defaults). */
export interface OpaquePortsListener {
  updateService(ports: ReadonlySet<number>): void;
}
