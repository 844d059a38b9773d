import type { MetricsRegistry } from "@destination/core";
import { ExternalWorkloadController } from "@destination/external-workload-controller";
import type { ServerLogger } from "../logging/server-logger.js";
import type { ResolvedServerOptions } from "../server-options.js";
import type { OpenedCluster } from "./open-cluster.js";

/** Upstream's fatal message when the controller should run and `HOSTNAME` is unset. */
export const HOSTNAME_MISSING =
  'Failed to initialize External Workload Endpoints Controller, "HOSTNAME" value not found';

/**
 * The mesh-expansion controller upstream's destination container runs beside the service: on a
 * cluster the server opened from a kubeconfig or in-cluster, with `-enable-endpoint-slices`
 * (upstream's condition), under the Lease in `-controller-namespace` with `HOSTNAME` as this
 * replica's identity. Created before the caches start, so its handlers see every event; started
 * by the caller once they have synced. None for a manifests folder or an in-process cluster,
 * where there is nothing to write to, nor for a caller that gives no hostname.
 */
export function externalWorkloadControllerFor(
  opened: OpenedCluster,
  options: ResolvedServerOptions,
  metrics: MetricsRegistry,
  logger: ServerLogger,
): ExternalWorkloadController | undefined {
  if (opened.api === undefined || !options.enableEndpointSlices) return undefined;
  if (options.hostname === undefined) return undefined;
  if (options.hostname === null || options.hostname === "") throw new Error(HOSTNAME_MISSING);
  return new ExternalWorkloadController({
    cluster: opened.cluster,
    api: opened.api,
    hostname: options.hostname,
    controllerNamespace: options.controllerNamespace,
    exportQueueMetrics: options.exportQueueMetrics,
    metrics,
    logger: logger.child({ component: "external-endpoints-controller" }),
  });
}
