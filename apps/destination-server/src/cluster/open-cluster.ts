import type { Clock, MetricsRegistry } from "@destination/core";
import {
  type Cluster,
  clusterMetrics,
  createKubeCluster,
  createManifestsCluster,
  type KubeApi,
  secretSourceOf,
} from "@destination/k8s-discovery";
import { kubeRemoteClusterFactory, type RemoteClusterFactory } from "@destination/multicluster";
import type { ServerLogger } from "../logging/server-logger.js";
import type { ResolvedServerOptions } from "../server-options.js";

export interface ClusterSource {
  readonly cluster?: Cluster | undefined;
  readonly manifests?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly kubeContext?: string | undefined;
  /** `-kube-api-silence-timeout`, in ms. */
  readonly kubeApiSilenceTimeoutMs?: number | undefined;
  readonly enableEndpointSlices: boolean;
  /** The clock of the caches opened here; the system's by default. */
  readonly clock?: Clock | undefined;
}

export interface OpenedCluster {
  readonly cluster: Cluster;
  /** True when the server created it, and so stops it on close. */
  readonly owned: boolean;
  readonly description: string;
  /** The API server behind the cluster, when the server opened one from a kubeconfig or in-cluster. */
  readonly api?: KubeApi;
}

/**
 * The cluster to serve: the one given, a folder of manifests, or a Kubernetes API server (whose
 * backend, client-node with it, is loaded only then).
 */
export async function openCluster(
  source: ClusterSource,
  metrics: MetricsRegistry,
  logger: ServerLogger,
): Promise<OpenedCluster> {
  if (source.cluster !== undefined) {
    return { cluster: source.cluster, owned: false, description: "in-process cluster" };
  }
  if (source.manifests !== undefined) {
    const cluster = createManifestsCluster({
      dir: source.manifests,
      logger: logger.child({ component: "manifests" }),
      metrics: clusterMetrics(metrics, "local"),
      ...(source.clock === undefined ? {} : { clock: source.clock }),
    });
    return { cluster, owned: true, description: `manifests in ${source.manifests}` };
  }
  const cluster = await createKubeCluster({
    ...(source.kubeconfig !== undefined ? { kubeconfigPath: source.kubeconfig } : {}),
    ...(source.kubeContext !== undefined ? { context: source.kubeContext } : {}),
    enableEndpointSlices: source.enableEndpointSlices,
    ...(source.kubeApiSilenceTimeoutMs !== undefined
      ? { apiSilenceTimeoutMs: source.kubeApiSilenceTimeoutMs }
      : {}),
    logger: logger.child({ component: "k8s" }),
    metrics: clusterMetrics(metrics, "local"),
    ...(source.clock === undefined ? {} : { clock: source.clock }),
  });
  return { cluster, owned: true, description: "Kubernetes API", api: cluster.api };
}

/**
 * How the server reaches linked clusters: the factory given, or a Kubernetes API cluster per
 * link Secret. The default loads k8s-discovery's cluster backend (client-node), so it is made
 * only for a cluster that carries Secrets, the only kind that links any: serving manifests
 * never loads it.
 */
export async function remoteClusterFactoryFor(
  cluster: Cluster,
  options: ResolvedServerOptions,
  metrics: MetricsRegistry,
): Promise<RemoteClusterFactory | undefined> {
  if (options.remoteClusterFactory !== undefined) return options.remoteClusterFactory;
  if (secretSourceOf(cluster) === undefined) return undefined;
  const { logger } = options;
  return kubeRemoteClusterFactory({
    enableEndpointSlices: options.enableEndpointSlices,
    metrics,
    logger: (name) => logger.child({ component: "k8s", cluster: name }),
  });
}
