import type { OpaquePortsListener, ProfileListener, ServiceProfile } from "@destination/core";

/** Receives a profile together with the Service's opaque ports (undefined until known). */
export interface OpaqueProfileListener {
  update(profile: ServiceProfile, opaquePorts: ReadonlySet<number> | undefined): void;
}

/**
 * Joins the profile stream with the Service's opaque-port set. Either side changing republishes
 * the last profile with the current set, once a profile has been seen. Every set update produces
 * a message, even when this port's result is unchanged: the watcher only reports real changes,
 * and upstream does the same.
 */
export class OpaquePortsMerge implements ProfileListener, OpaquePortsListener {
  #profile: ServiceProfile | undefined;
  #opaquePorts: ReadonlySet<number> | undefined;

  constructor(private readonly next: OpaqueProfileListener) {}

  /** Upstream of this stage, default-profile substitution has removed every null. */
  update(profile: ServiceProfile | null): void {
    if (profile === null) return;
    this.#profile = profile;
    this.#publish();
  }

  updateService(ports: ReadonlySet<number>): void {
    this.#opaquePorts = ports;
    this.#publish();
  }

  #publish(): void {
    if (this.#profile !== undefined) this.next.update(this.#profile, this.#opaquePorts);
  }
}
