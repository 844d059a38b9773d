import type { MetricsRegistry } from "@destination/core";
import { type Cluster, secretSourceOf } from "@destination/k8s-discovery";
import { kubeRemoteClusterFactory, type RemoteClusterFactory } from "@destination/multicluster";
import type { ResolvedServerOptions } from "../server-options.js";

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
