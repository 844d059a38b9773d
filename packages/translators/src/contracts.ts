// What the server and the translators agree on: the flags that shape an endpoint, where a
// stream's messages go, who is told of each translation, and the one error a translation
// throws. Both pipelines (endpoints/ and profiles/) use them, so they live here.
import type { Http2ClientParams } from "@destination/proto";

/**
 * The server flags that shape a `WeightedAddr` (see README "Endpoints on Get"). One value is
 * shared by every Get and endpoint-profile stream of a cluster; a remote cluster (multicluster
 * discovery) gets its own copy with its own trust domain.
 */
export interface EndpointTranslatorConfig {
  /** `--controller-namespace`, compared with the pod label `linkerd.io/control-plane-ns`. */
  readonly controllerNamespace: string;
  /** `--identity-trust-domain`; an empty value turns pod identities off. */
  readonly identityTrustDomain: string;
  /** `--enable-h2-upgrade`: the `h2` hint for meshed pods and gateway endpoints. */
  readonly enableH2Upgrade: boolean;
  /** `--outbound-transport-mode=transport-header`: opaque transport on every meshed port. */
  readonly forceOpaqueTransport: boolean;
  /** `--meshed-http2-client-params`; absent means no `http2` field is ever sent. */
  readonly meshedHttp2ClientParams?: Http2ClientParams | undefined;
  /** `--ext-endpoint-zone-weights`: weight ×10 for endpoints in the caller's zone. */
  readonly extEndpointZoneWeights: boolean;
  /** `--default-opaque-ports`, used where a workload has no opaque-ports annotation. */
  readonly defaultOpaquePorts: ReadonlySet<number>;
}

/**
 * Where a translator puts the messages of one stream. The server backs it with the stream's
 * bounded queue (README "Sinks").
 */
export interface MessageSink<T> {
  /**
   * Enqueues one message without blocking. Returns false when the queue refused it (it was full
   * or the stream has ended); the server counts that overflow and ends the stream, so the
   * translator only has to stop relying on the message having been sent.
   */
  send(message: T): boolean;
}

/**
 * What one translation produced: an endpoints `add` or `remove` set (shared by every Get stream
 * of a filter group and zone), a service `profile` or an `endpoint_profile` (one per GetProfile
 * stream).
 */
export type TranslationKind = "add" | "remove" | "profile" | "endpoint_profile";

/**
 * Told of every translation as it is done, before anything is encoded. A translation is the
 * work a cluster change costs per message; counting them shows which changes cost any at all
 * (the server exposes them as `destination_translations_total`).
 */
export interface TranslationCounter {
  translated(kind: TranslationKind): void;
}

/** The counter of a translator nobody counts. */
export const uncountedTranslations: TranslationCounter = { translated() {} };

/**
 * An address or profile that cannot become a message. Translators catch it, log its message
 * and leave the item out; it never reaches a watcher.
 */
export class TranslationError extends Error {
  override readonly name = "TranslationError";
}
