import type { MetricsRegistry } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { type Cluster, registerCacheSizeMetrics } from "@destination/k8s-discovery";
import {
  ClusterStore,
  FederatedServices,
  type RemoteClusterFactory,
} from "@destination/multicluster";
import { WorkloadWatcher } from "@destination/pod-watcher";
import { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import { EndpointTranslation, type EndpointTranslatorConfig } from "@destination/translators";
import { Registry } from "prom-client";
import { GetSubscriptions, ProfileSubscriptions } from "../audit/held-subscriptions.js";
import { resolveOptions } from "../config/flag-options.js";
import { GrpcServerMetrics } from "../metrics/grpc-server-metrics.js";
import { PromMetricsRegistry } from "../metrics/prom-metrics-registry.js";
import { queueOverflowMetrics, translationMetrics } from "../metrics/stream-metrics.js";
import type { ReferenceOptions } from "../reference/reference-options.js";
import type { ResolvedServerOptions } from "../server-options.js";
import { OpenStreams } from "../streams/stream-session.js";
import type { DestinationContext } from "./destination-context.js";
import { RemoteTranslations } from "./destination-context.js";
import { NodeZones } from "./node-zones.js";

/** A DestinationContext and what releases it. */
export interface DestinationContextHandle {
  readonly context: DestinationContext;
  /** Ends every open stream with OK, refuses new ones, and stops the watchers. */
  close(): Promise<void>;
}

/**
 * What the Destination service is made of beside its cluster, each with the server's default:
 * the options that shape answers, its streams' queue, how linked clusters are reached and synced,
 * its logger and clock, and where its metrics go.
 */
export interface DestinationContextOptions
  extends ReferenceOptions,
    Partial<
      Pick<
        ResolvedServerOptions,
        "streamQueueCapacity" | "remoteClusterFactory" | "cacheSyncTimeoutMs" | "logger" | "clock"
      >
    > {
  /** Where the gRPC, queue and watcher metrics go; a registry of its own by default. */
  readonly registry?: Registry;
  /** The metrics seam on `registry`, if the caller has one (two would register each twice). */
  readonly metrics?: MetricsRegistry;
}

/**
 * The factory when none is given: without one the store links no cluster, as link Secrets reach
 * it only through `startDestinationServer`, which passes the Kubernetes one when it reads them
 * (a factory of its own would load client-node on every context).
 */
const linksNoClusters: RemoteClusterFactory = (name) => {
  throw new Error(`cannot link cluster ${name}: no remoteClusterFactory was given`);
};

/**
 * The watchers, translations and stream bookkeeping of the Destination service on a cluster, for
 * `startDestinationServer` or a grpc-js `Server` of one's own (README "Mounting the handlers"):
 * `server.addService(DestinationService, destinationHandlers(handle.context))`. Call it before
 * `cluster.start()` (every watcher registers its cache handlers here, so none misses an event),
 * serve once `cluster.whenSynced()` has resolved, and `close()` it before stopping the cluster.
 * Linked remote clusters are followed only with a `remoteClusterFactory` and link Secrets fed to
 * the store, as `startDestinationServer` does.
 */
export function createDestinationContext(
  cluster: Cluster,
  input: DestinationContextOptions = {},
): DestinationContextHandle {
  const options = resolveOptions(input);
  const registry = input.registry ?? new Registry();
  const metrics = input.metrics ?? new PromMetricsRegistry(registry);
  const { logger } = options;
  const clusterStore = new ClusterStore({
    factory: options.remoteClusterFactory ?? linksNoClusters,
    enableEndpointSlices: options.enableEndpointSlices,
    enableIPv6: options.enableIpv6,
    syncTimeoutMs: options.cacheSyncTimeoutMs,
    logger: logger.child({ component: "cluster-store" }),
    clusterLogger: (name) => logger.child({ component: "cluster-store", cluster: name }),
    metrics,
    clock: options.clock,
  });
  // Remote clusters report their cache sizes too, labelled with their names.
  registerCacheSizeMetrics(metrics, () => [cluster, ...clusterStore.clusters()]);

  const endpoints = new EndpointsWatcher(cluster, {
    enableEndpointSlices: options.enableEndpointSlices,
    enableIPv6: options.enableIpv6,
    logger: logger.child({ component: "endpoints-watcher" }),
    metrics,
  });
  const workloads = new WorkloadWatcher(cluster, {
    defaultOpaquePorts: options.defaultOpaquePorts,
    enableEndpointSlices: options.enableEndpointSlices,
    logger: logger.child({ component: "workload-watcher" }),
    metrics,
  });
  const profiles = new ProfileWatcher(cluster, {
    logger: logger.child({ component: "profile-watcher" }),
    metrics,
  });
  const opaquePorts = new OpaquePortsWatcher(cluster, {
    defaultOpaquePorts: options.defaultOpaquePorts,
    logger: logger.child({ component: "opaque-ports-watcher" }),
    metrics,
  });
  const federated = new FederatedServices(
    cluster,
    clusterStore,
    logger.child({ component: "federation" }),
  );
  const nodeZones = new NodeZones(cluster);

  const translatorConfig: EndpointTranslatorConfig = {
    controllerNamespace: options.controllerNamespace,
    identityTrustDomain: options.identityTrustDomain,
    enableH2Upgrade: options.enableH2Upgrade,
    forceOpaqueTransport: options.forceOpaqueTransport,
    meshedHttp2ClientParams: options.meshedHttp2ClientParams,
    extEndpointZoneWeights: options.extEndpointZoneWeights,
    defaultOpaquePorts: options.defaultOpaquePorts,
  };
  const streams = new OpenStreams();
  const translations = translationMetrics(metrics);
  const context: DestinationContext = {
    cluster,
    endpoints,
    workloads,
    profiles,
    opaquePorts,
    nodeZones,
    endpointTranslation: new EndpointTranslation(
      translatorConfig,
      logger.child({ component: "translator" }),
      translations,
    ),
    translatorConfig,
    translations,
    clusterStore,
    remoteTranslations: new RemoteTranslations(
      translatorConfig,
      logger.child({ component: "translator" }),
      translations,
    ),
    federated,
    clusterDomain: options.clusterDomain,
    streamQueueCapacity: options.streamQueueCapacity,
    grpcMetrics: new GrpcServerMetrics(registry),
    overflowMetrics: queueOverflowMetrics(metrics),
    streams,
    getSubscriptions: new GetSubscriptions(),
    profileSubscriptions: new ProfileSubscriptions(),
    logger: logger.child({ component: "grpc" }),
  };

  let closing: Promise<void> | undefined;
  return {
    context,
    close() {
      closing ??= (async () => {
        streams.endAll();
        nodeZones.stop();
        federated.stop();
        endpoints.stop();
        workloads.stop();
        profiles.stop();
        opaquePorts.stop();
        await clusterStore.stop();
      })();
      return closing;
    },
  };
}
