import { type Logger, type MetricsRegistry, silentLogger } from "@destination/core";
import { clusterMetrics, loadKubeBackend, type ResourceKind } from "@destination/k8s-discovery";
import type { RemoteClusterFactory } from "./cluster-store.js";

/** What a remote cluster caches: no ExternalWorkloads, Jobs, Nodes or profiles. */
const REMOTE_KINDS: readonly ResourceKind[] = [
  "Service",
  "EndpointSlice",
  "Endpoints",
  "Pod",
  "Server",
  "ReplicaSet",
];

/**
 * The default: a Kubernetes API cluster reached with the link Secret's kubeconfig. It resolves
 * once k8s-discovery's cluster backend is loaded (client-node with it, which importing this
 * package does not load), so that the store can then create clusters synchronously.
 */
export async function kubeRemoteClusterFactory(options: {
  readonly enableEndpointSlices: boolean;
  readonly metrics: MetricsRegistry;
  /** The logger of one remote cluster's caches. */
  readonly logger?: (cluster: string) => Logger;
}): Promise<RemoteClusterFactory> {
  const { createKubeCluster } = await loadKubeBackend();
  return (name, kubeconfigYaml) =>
    createKubeCluster({
      kubeconfigYaml,
      name,
      enableEndpointSlices: options.enableEndpointSlices,
      kinds: REMOTE_KINDS,
      logger: options.logger?.(name) ?? silentLogger,
      metrics: clusterMetrics(options.metrics, name),
    });
}
