import { type Clock, systemClock } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { type Cluster, registerCacheSizeMetrics, secretSourceOf } from "@destination/k8s-discovery";
import {
  ClusterStore,
  FederatedServices,
  kubeRemoteClusterFactory,
} from "@destination/multicluster";
import { WorkloadWatcher } from "@destination/pod-watcher";
import { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import { EndpointTranslation, type EndpointTranslatorConfig } from "@destination/translators";
import { collectDefaultMetrics, Registry } from "prom-client";
import { startAdminServer } from "./admin/admin-server.js";
import { endpointsReport } from "./admin/endpoints-report.js";
import { openCluster } from "./cluster/open-cluster.js";
import { parseListenAddress } from "./config/listen-address.js";
import type { DestinationContext } from "./grpc/destination-context.js";
import { handleGet } from "./grpc/get-handler.js";
import { warmGetPath } from "./grpc/get-path-warm-up.js";
import { handleGetProfile } from "./grpc/get-profile-handler.js";
import {
  type DestinationHandlers,
  type GrpcServer,
  prepareGrpcServer,
} from "./grpc/grpc-server.js";
import { NodeZones } from "./grpc/node-zones.js";
import { createServerLogger } from "./logging/server-logger.js";
import { GrpcServerMetrics } from "./metrics/grpc-server-metrics.js";
import { PromMetricsRegistry } from "./metrics/prom-metrics-registry.js";
import { queueOverflowMetrics } from "./metrics/queue-overflow-metrics.js";
import { RemoteTranslations } from "./multicluster/remote-translations.js";
import type { DestinationServerOptions, ResolvedServerOptions } from "./server-options.js";
import { OpenStreams } from "./streams/stream-session.js";

/** A running server. */
export interface RunningDestinationServer {
  readonly grpcPort: number;
  readonly adminPort: number;
  /** The Prometheus registry behind `/metrics`. */
  readonly registry: Registry;
  /**
   * Graceful shutdown: ends every open stream with OK, stops accepting, waits for calls up to
   * the shutdown timeout, then stops the watchers, the cluster (if the server opened it) and
   * the admin server. Safe to call twice.
   */
  close(): Promise<void>;
}

/** The caches did not sync within the cache-sync timeout; the CLI exits non-zero. */
export class CacheSyncTimeoutError extends Error {
  override readonly name = "CacheSyncTimeoutError";
}

function resolveOptions(options: DestinationServerOptions): ResolvedServerOptions {
  return {
    addr: options.addr ?? ":8086",
    metricsAddr: options.metricsAddr ?? ":9996",
    cluster: options.cluster,
    manifests: options.manifests,
    kubeconfig: options.kubeconfig,
    kubeContext: options.kubeContext,
    controllerNamespace: options.controllerNamespace ?? "linkerd",
    identityTrustDomain: options.identityTrustDomain ?? "cluster.local",
    clusterDomain: options.clusterDomain ?? "cluster.local",
    forceOpaqueTransport: options.forceOpaqueTransport ?? false,
    enableH2Upgrade: options.enableH2Upgrade ?? true,
    enableEndpointSlices: options.enableEndpointSlices ?? true,
    enableIpv6: options.enableIpv6 ?? true,
    defaultOpaquePorts: options.defaultOpaquePorts ?? new Set(),
    streamQueueCapacity: options.streamQueueCapacity ?? 100,
    meshedHttp2ClientParams: options.meshedHttp2ClientParams,
    extEndpointZoneWeights: options.extEndpointZoneWeights ?? false,
    minPingIntervalMs: options.minPingIntervalMs ?? 10_000,
    keepalivePermitWithoutCalls: options.keepalivePermitWithoutCalls ?? true,
    maxConcurrentStreams: options.maxConcurrentStreams ?? 0,
    cacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 60_000,
    warmUpServices: options.warmUpServices ?? 256,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    logger: options.logger ?? createServerLogger(),
    remoteClusterFactory: options.remoteClusterFactory,
    clock: options.clock ?? systemClock,
  };
}

function withTimeout<T>(
  clock: Clock,
  promise: Promise<T>,
  ms: number,
  error: () => Error,
): Promise<T> {
  let timer: unknown;
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(error()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clock.clearTimeout(timer));
}

/**
 * The warm-up is an optimisation: a failure in it is logged, and the server starts without it.
 */
function warmUpGetPath(
  cluster: Cluster,
  options: ResolvedServerOptions,
  translatorConfig: EndpointTranslatorConfig,
): void {
  try {
    const warmUp = warmGetPath(cluster, {
      enableEndpointSlices: options.enableEndpointSlices,
      enableIPv6: options.enableIpv6,
      clusterDomain: options.clusterDomain,
      translatorConfig,
      services: options.warmUpServices,
      clock: options.clock,
    });
    options.logger.info("get path warmed up", { services: warmUp.services, ms: warmUp.ms });
  } catch (err) {
    options.logger.warn("get path warm-up failed; starting without it", { error: err });
  }
}

/**
 * Starts the destination service in this order: admin server (not ready), cluster caches and
 * watchers, wait for sync (the gRPC port is bound only after it, so no request is answered from
 * half-filled caches), gRPC server, ready. Rejects (after releasing what it started) when any
 * step fails. See README "Startup and shutdown".
 */
export async function startDestinationServer(
  input: DestinationServerOptions = {},
): Promise<RunningDestinationServer> {
  const options = resolveOptions(input);
  const { logger } = options;
  const grpcListen = parseListenAddress(options.addr);
  const adminListen = parseListenAddress(options.metricsAddr);
  const startedAt = performance.now();

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = new PromMetricsRegistry(registry);
  const admin = await startAdminServer({ ...adminListen, registry, logger });
  logger.info("admin server listening", { port: admin.port });

  const cleanups: (() => Promise<void> | void)[] = [() => admin.close()];
  const release = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        logger.error("cleanup failed", { error: err });
      }
    }
  };

  try {
    const opened = openCluster(options, metrics, logger);
    logger.info("serving", { source: opened.description });
    if (opened.owned) cleanups.push(() => opened.cluster.stop());
    const { cluster } = opened;
    const clusterStore = new ClusterStore({
      factory:
        options.remoteClusterFactory ??
        kubeRemoteClusterFactory({
          enableEndpointSlices: options.enableEndpointSlices,
          metrics,
          logger: (name) => logger.child({ component: "k8s", cluster: name }),
        }),
      enableEndpointSlices: options.enableEndpointSlices,
      enableIPv6: options.enableIpv6,
      syncTimeoutMs: options.cacheSyncTimeoutMs,
      logger: logger.child({ component: "cluster-store" }),
      clusterLogger: (name) => logger.child({ component: "cluster-store", cluster: name }),
      metrics,
      clock: options.clock,
    });
    cleanups.push(() => clusterStore.stop());
    // Remote clusters report their cache sizes too, labelled with their names.
    registerCacheSizeMetrics(metrics, () => [cluster, ...clusterStore.clusters()]);

    // Watchers register their cache handlers now, before the caches start, so none misses an event.
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
    cleanups.push(() => {
      nodeZones.stop();
      federated.stop();
      endpoints.stop();
      workloads.stop();
      profiles.stop();
      opaquePorts.stop();
    });

    await cluster.start();
    // Built while the first lists are on their way, rather than after them.
    const preparing = prepareGrpcServer(options, logger);
    await withTimeout(
      options.clock,
      cluster.whenSynced(),
      options.cacheSyncTimeoutMs,
      () => new CacheSyncTimeoutError(`caches not synced after ${options.cacheSyncTimeoutMs} ms`),
    );
    logger.info("caches synced", { ms: Math.round(performance.now() - startedAt) });

    // The link Secrets of the controller namespace (README "Cluster store"); remote clusters
    // start in the background and never hold up readiness.
    const secrets = secretSourceOf(cluster);
    if (secrets === undefined) {
      logger.info("this cluster source carries no Secrets; no remote clusters are linked");
    } else {
      const watch = secrets.watchSecrets(options.controllerNamespace, clusterStore.events);
      cleanups.push(() => watch.stop());
    }

    const translatorConfig: EndpointTranslatorConfig = {
      controllerNamespace: options.controllerNamespace,
      identityTrustDomain: options.identityTrustDomain,
      enableH2Upgrade: options.enableH2Upgrade,
      forceOpaqueTransport: options.forceOpaqueTransport,
      meshedHttp2ClientParams: options.meshedHttp2ClientParams,
      extEndpointZoneWeights: options.extEndpointZoneWeights,
      defaultOpaquePorts: options.defaultOpaquePorts,
    };
    warmUpGetPath(cluster, options, translatorConfig);
    const streams = new OpenStreams();
    const ctx: DestinationContext = {
      cluster,
      endpoints,
      workloads,
      profiles,
      opaquePorts,
      nodeZones,
      endpointTranslation: new EndpointTranslation(
        translatorConfig,
        logger.child({ component: "translator" }),
      ),
      translatorConfig,
      clusterStore,
      remoteTranslations: new RemoteTranslations(
        translatorConfig,
        logger.child({ component: "translator" }),
      ),
      federated,
      clusterDomain: options.clusterDomain,
      streamQueueCapacity: options.streamQueueCapacity,
      grpcMetrics: new GrpcServerMetrics(registry),
      overflowMetrics: queueOverflowMetrics(metrics),
      streams,
      logger: logger.child({ component: "grpc" }),
    };
    const destination: DestinationHandlers = {
      get: (call, request) => handleGet(ctx, call, request),
      getProfile: (call, request) => handleGetProfile(ctx, call, request),
    };
    const grpc: GrpcServer = await preparing.start(destination, grpcListen);
    cleanups.push(async () => {
      streams.endAll();
      await grpc.shutdown(options.shutdownTimeoutMs);
    });
    admin.serveEndpointsReport((id) =>
      endpointsReport(cluster, id, {
        enableIpv6: options.enableIpv6,
        enableEndpointSlices: options.enableEndpointSlices,
        subscribers: endpoints,
      }),
    );
    admin.markReady();
    logger.info("ready", {
      grpcPort: grpc.port,
      adminPort: admin.port,
      ms: Math.round(performance.now() - startedAt),
    });

    let closing: Promise<void> | undefined;
    return {
      grpcPort: grpc.port,
      adminPort: admin.port,
      registry,
      close: () => {
        closing ??= release();
        return closing;
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
