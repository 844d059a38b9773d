import {
  type Logger,
  type OpaquePortsListener,
  type ProfileListener,
  silentLogger,
} from "@destination/core";
import type { DestinationProfile } from "@destination/proto";
import type { MessageSink } from "../message-sink.js";
import type { TranslationCounter } from "../translation-counter.js";
import { DedupProfileListener } from "./dedup-profile-listener.js";
import { DefaultProfileListener } from "./default-profile-listener.js";
import type { ProfileTarget } from "./destination-profile.js";
import { FallbackProfileListener } from "./fallback-profile-listener.js";
import { OpaquePortsMerge } from "./opaque-ports-merge.js";
import { ProfileTranslator } from "./profile-translator.js";

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
