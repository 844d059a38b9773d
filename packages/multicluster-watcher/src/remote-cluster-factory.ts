import { type Logger, type MetricsRegistry, silentLogger } from "@destination/core";
import { clusterMetrics, createKubeCluster, type ResourceKind } from "@destination/k8s-discovery";
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

/** The default: a Kubernetes API cluster reached with the link Secret's kubeconfig. */
export function kubeRemoteClusterFactory(options: {
  readonly enableEndpointSlices: boolean;
  readonly metrics: MetricsRegistry;
  /** The logger of one remote cluster's caches. */
  readonly logger?: (cluster: string) => Logger;
}): RemoteClusterFactory {
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
