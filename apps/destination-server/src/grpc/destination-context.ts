import type { EndpointsWatcher } from "@destination/endpoints-watcher";
import type { Cluster } from "@destination/k8s-discovery";
import type { ClusterStore, FederatedServices, RemoteCluster } from "@destination/multicluster";
import type { WorkloadWatcher } from "@destination/pod-watcher";
import type { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import {
  EndpointTranslation,
  type EndpointTranslatorConfig,
  type TranslationCounter,
} from "@destination/translators";
import type { GetSubscriptions, ProfileSubscriptions } from "../audit/held-subscriptions.js";
import type { ServerLogger } from "../logging/server-logger.js";
import type { GrpcServerMetrics } from "../metrics/grpc-server-metrics.js";
import type { QueueOverflowMetrics } from "../metrics/stream-metrics.js";
import type { OpenStreams } from "../streams/stream-session.js";
import type { NodeZones } from "./node-zones.js";

/** What the Get and GetProfile handlers are built from: one per server. */
export interface DestinationContext {
  readonly cluster: Cluster;
  readonly endpoints: EndpointsWatcher;
  readonly workloads: WorkloadWatcher;
  readonly profiles: ProfileWatcher;
  readonly opaquePorts: OpaquePortsWatcher;
  /** Callers' zones, followed as their Nodes come and change. */
  readonly nodeZones: NodeZones;
  /** Shared by every Get stream, so that streams in one zone share translated messages. */
  readonly endpointTranslation: EndpointTranslation;
  readonly translatorConfig: EndpointTranslatorConfig;
  /** Counts what the translators do (`destination_translations_total`). */
  readonly translations: TranslationCounter;
  /** Linked remote clusters (README "Cluster store"). */
  readonly clusterStore: ClusterStore;
  readonly remoteTranslations: RemoteTranslations;
  /** Federated Services of the local cluster (README "Federated flow"). */
  readonly federated: FederatedServices;
  readonly clusterDomain: string;
  readonly streamQueueCapacity: number;
  readonly grpcMetrics: GrpcServerMetrics;
  readonly overflowMetrics: QueueOverflowMetrics;
  readonly streams: OpenStreams;
  /** The local Get subscriptions open now, for the self-audit. */
  readonly getSubscriptions: GetSubscriptions;
  /** The GetProfile subscriptions open now, for the self-audit. */
  readonly profileSubscriptions: ProfileSubscriptions;
  readonly logger: ServerLogger;
}

export const DESTINATION_SERVICE_NAME = "io.linkerd.proxy.destination.Destination";

/**
 * Translation for a remote cluster's endpoints (README "Remote discovery flow"): the local config
 * (controller namespace included) with the remote cluster's trust domain. One per linked
 * cluster, so streams of that cluster share translated messages as local streams do.
 */
export class RemoteTranslations {
  readonly #byCluster = new WeakMap<RemoteCluster, EndpointTranslation>();

  constructor(
    private readonly config: EndpointTranslatorConfig,
    private readonly logger: ServerLogger,
    private readonly counter: TranslationCounter,
  ) {}

  forCluster(remote: RemoteCluster): EndpointTranslation {
    let translation = this.#byCluster.get(remote);
    if (translation === undefined) {
      translation = new EndpointTranslation(
        { ...this.config, identityTrustDomain: remote.trustDomain },
        this.logger,
        this.counter,
      );
      this.#byCluster.set(remote, translation);
    }
    return translation;
  }
}
