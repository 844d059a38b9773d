import type { Clock } from "@destination/core";
import { type Cluster, secretSourceOf } from "@destination/k8s-discovery";
import type { EndpointTranslatorConfig } from "@destination/translators";
import { collectDefaultMetrics, Registry } from "prom-client";
import { startAdminServer } from "./admin/admin-server.js";
import { endpointsReport } from "./admin/endpoints-report.js";
import { loadPprofProfiler } from "./admin/pprof.js";
import { startSelfAudit } from "./audit/self-audit.js";
import { externalWorkloadControllerFor } from "./cluster/external-workload-controller-for.js";
import { openCluster, remoteClusterFactoryFor } from "./cluster/open-cluster.js";
import { resolveOptions } from "./config/flag-options.js";
import { parseListenAddress } from "./config/server-flag.js";
import { createDestinationContext } from "./grpc/create-destination-context.js";
import { destinationHandlers } from "./grpc/destination-handlers.js";
import { warmGetPath } from "./grpc/get-path-warm-up.js";
import { type GrpcServer, prepareGrpcServer } from "./grpc/grpc-server.js";
import { prepareThreadedGrpcServer } from "./grpc/threaded-grpc-server.js";
import { PromMetricsRegistry } from "./metrics/prom-metrics-registry.js";
import { settleHeapAfterStart } from "./runtime/settle-heap.js";
import type { DestinationServerOptions, ResolvedServerOptions } from "./server-options.js";

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
 * How often `nodejs_eventloop_lag_*` samples the event loop. prom-client's default, 10 ms,
 * wakes the process 100 times a second, busy or idle: about 9 ms of CPU per second on an idle
 * server (BENCHMARKS.md, "Idle CPU and hot counters" in "Findings that shaped the design").
 * Every 100 ms still sees any stall that long.
 */
const EVENT_LOOP_DELAY_SAMPLE_MS = 100;

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
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: EVENT_LOOP_DELAY_SAMPLE_MS,
  });
  const metrics = new PromMetricsRegistry(registry);
  const pprof = options.enablePprof ? await loadPprofProfiler() : undefined;
  const admin = await startAdminServer({
    ...adminListen,
    registry,
    logger,
    ...(pprof !== undefined ? { pprof } : {}),
  });
  logger.info("admin server listening", { port: admin.port });

  const cleanups: (() => Promise<void> | void)[] = [() => admin.close()];
  if (pprof !== undefined) cleanups.unshift(() => pprof.stop());
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
    const opened = await openCluster(options, metrics, logger);
    logger.info("serving", { source: opened.description });
    if (opened.owned) cleanups.push(() => opened.cluster.stop());
    const { cluster } = opened;
    const remoteClusterFactory = await remoteClusterFactoryFor(cluster, options, metrics);
    // Every watcher registers its cache handlers now, before the caches start, so none misses
    // an event.
    const destination = createDestinationContext(cluster, {
      ...options,
      remoteClusterFactory,
      registry,
      metrics,
    });
    cleanups.push(() => destination.close());
    const ctx = destination.context;
    const controller = externalWorkloadControllerFor(opened, options, metrics, logger);
    // Stopped before the cluster: the sync in progress ends and the Lease is released first.
    if (controller !== undefined) cleanups.push(() => controller.stop());

    await cluster.start();
    // Built while the first lists are on their way, rather than after them.
    const preparing = (options.grpcServingThread ? prepareThreadedGrpcServer : prepareGrpcServer)(
      options,
      logger,
      metrics,
    );
    cleanups.push(() => preparing.discard());
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
      const watch = secrets.watchSecrets(options.controllerNamespace, ctx.clusterStore.events);
      cleanups.push(() => watch.stop());
    }

    // As upstream, the ExternalWorkload controller starts once the caches have synced.
    controller?.start();

    warmUpGetPath(cluster, options, ctx.translatorConfig);
    const grpc: GrpcServer = await preparing.start(destinationHandlers(ctx), grpcListen);
    cleanups.push(async () => {
      ctx.streams.endAll();
      await grpc.shutdown(options.shutdownTimeoutMs);
    });
    admin.serveEndpointsReport((id) =>
      endpointsReport(cluster, id, {
        enableIpv6: options.enableIpv6,
        enableEndpointSlices: options.enableEndpointSlices,
        subscribers: ctx.endpoints,
      }),
    );
    // In the background, off the request path; stopped before the streams end.
    const audit = startSelfAudit(cluster, ctx, options, metrics);
    if (audit !== undefined) cleanups.push(() => audit.stop());
    admin.markReady();
    logger.info("ready", {
      grpcPort: grpc.port,
      adminPort: admin.port,
      ms: Math.round(performance.now() - startedAt),
    });
    settleHeapAfterStart(logger);

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
