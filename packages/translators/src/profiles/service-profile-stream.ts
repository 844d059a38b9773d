// One GetProfile stream on a service: `createServiceProfileStream` wires the stages below, in
// this order, in front of the `ProfileTranslator` (destination-profile.ts). The stages only decide
// which ServiceProfile goes on and when; they exist only as steps of this pipeline.
import {
  type Logger,
  type OpaquePortsListener,
  type ProfileListener,
  type ServiceProfile,
  silentLogger,
} from "@destination/core";
import type { DestinationProfile } from "@destination/proto";
import type { MessageSink, TranslationCounter } from "../contracts.js";
import {
  DEFAULT_SERVICE_PROFILE,
  type OpaqueProfileListener,
  type ProfileTarget,
  ProfileTranslator,
} from "./destination-profile.js";

export interface ServiceProfileStreamOptions extends ProfileTarget {
  /** `ns` of the caller's context token; "" when it has none. */
  readonly tokenNamespace: string;
  readonly sink: MessageSink<DestinationProfile>;
  readonly logger?: Logger;
  /** Told of each profile translated for this stream. */
  readonly counter?: TranslationCounter;
}

/** A ServiceProfile to watch and the listener to hand it to. */
export interface ProfileSubscription {
  /** The ProfileWatcher key: the ServiceProfile named after the FQN, in this namespace. */
  readonly id: { readonly namespace: string; readonly name: string };
  /** `primary` (client namespace), `backup` (service namespace) or `only` (no token ns). */
  readonly role: "primary" | "backup" | "only";
  readonly listener: ProfileListener;
}

/** The listeners one service-profile GetProfile stream subscribes with. */
export interface ServiceProfileStream {
  /**
   * Subscribe this to the OpaquePortsWatcher for the Service first, so that the first profile
   * already carries the Service's opaque ports.
   */
  readonly opaquePortsListener: OpaquePortsListener;
  /** Then subscribe each of these to the ProfileWatcher, in order. */
  readonly profileSubscriptions: readonly ProfileSubscription[];
}

/**
 * Wires the service-profile pipeline for one stream: fallback (with a token namespace) → default
 * profile → dedup → opaque-ports merge → translation → sink.
 * See README "The service-profile pipeline".
 */
export function createServiceProfileStream(
  options: ServiceProfileStreamOptions,
): ServiceProfileStream {
  const { fqn, service, port, tokenNamespace, sink } = options;
  const logger = options.logger ?? silentLogger;
  const merge = new OpaquePortsMerge(
    new ProfileTranslator({ fqn, service, port }, sink, logger, options.counter),
  );
  const profiles = new DefaultProfileListener(new DedupProfileListener(merge));
  if (tokenNamespace === "") {
    return {
      opaquePortsListener: merge,
      profileSubscriptions: [
        { id: { namespace: service.namespace, name: fqn }, role: "only", listener: profiles },
      ],
    };
  }
  const fallback = new FallbackProfileListener(profiles);
  return {
    opaquePortsListener: merge,
    profileSubscriptions: [
      { id: { namespace: tokenNamespace, name: fqn }, role: "primary", listener: fallback.primary },
      {
        id: { namespace: service.namespace, name: fqn },
        role: "backup",
        listener: fallback.backup,
      },
    ],
  };
}

interface Reported {
  readonly profile: ServiceProfile | null;
}

/**
 * Chooses between the client-namespace ServiceProfile (primary) and the service-namespace one
 * (backup). Nothing is published until both have reported once; after that every report
 * publishes the primary, or the backup while the primary is absent.
 */
export class FallbackProfileListener {
  /** Subscribe to the ServiceProfile `<fqn>` in the client's namespace. */
  readonly primary: ProfileListener = { update: (p) => this.#report("primary", p) };
  /** Subscribe to the ServiceProfile `<fqn>` in the Service's namespace. */
  readonly backup: ProfileListener = { update: (p) => this.#report("backup", p) };

  #primary: Reported | undefined;
  #backup: Reported | undefined;

  constructor(private readonly next: ProfileListener) {}

  #report(which: "primary" | "backup", profile: ServiceProfile | null): void {
    if (which === "primary") this.#primary = { profile };
    else this.#backup = { profile };
    const primary = this.#primary;
    const backup = this.#backup;
    if (primary === undefined || backup === undefined) return;
    this.next.update(
      primary.profile === null && backup.profile !== null ? backup.profile : primary.profile,
    );
  }
}

/** Turns "no ServiceProfile" into the default profile: a stream always has a profile to send. */
export class DefaultProfileListener implements ProfileListener {
  constructor(private readonly next: ProfileListener) {}

  update(profile: ServiceProfile | null): void {
    this.next.update(profile ?? DEFAULT_SERVICE_PROFILE);
  }
}

/**
 * Same object, or the same stored version of the same object. Informer resyncs repeat an object;
 * a new resourceVersion is a change even when the content is identical.
 */
function sameVersion(a: ServiceProfile, b: ServiceProfile): boolean {
  if (a === b) return true;
  const { uid, resourceVersion } = a.metadata;
  return (
    !!uid &&
    !!resourceVersion &&
    uid === b.metadata.uid &&
    resourceVersion === b.metadata.resourceVersion
  );
}

/**
 * Drops a profile that repeats the one forwarded last, including a repeated default profile, so
 * that informer resyncs send nothing. See README "The service-profile pipeline".
 */
export class DedupProfileListener implements ProfileListener {
  #last: ServiceProfile | null | undefined;

  constructor(private readonly next: ProfileListener) {}

  update(profile: ServiceProfile | null): void {
    const last = this.#last;
    if (last !== undefined) {
      if (profile === null ? last === null : last !== null && sameVersion(profile, last)) return;
    }
    this.#last = profile;
    this.next.update(profile);
  }
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
