import type { EndpointsWatcher } from "@destination/endpoints-watcher";
import type { Cluster } from "@destination/k8s-discovery";
import type { ClusterStore, FederatedServices } from "@destination/multicluster";
import type { WorkloadWatcher } from "@destination/pod-watcher";
import type { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import type {
  EndpointTranslation,
  EndpointTranslatorConfig,
  TranslationCounter,
} from "@destination/translators";
import type { GetSubscriptions, ProfileSubscriptions } from "../audit/held-subscriptions.js";
import type { ServerLogger } from "../logging/server-logger.js";
import type { GrpcServerMetrics } from "../metrics/grpc-server-metrics.js";
import type { QueueOverflowMetrics } from "../metrics/stream-metrics.js";
import type { RemoteTranslations } from "../multicluster/remote-translations.js";
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
