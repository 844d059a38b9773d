import {
  clusterMetrics,
  createKubeCluster,
  type MetricsRegistry,
  type ResourceKind,
} from "@destination/k8s-discovery";
import type { ServerLogger } from "../logging/server-logger.js";
import type { RemoteClusterFactory } from "./cluster-store.js";

/** watchers.md C-6: what a remote cluster caches; no ExternalWorkloads, Jobs, Nodes or profiles. */
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
  readonly logger: ServerLogger;
}): RemoteClusterFactory {
  return (name, kubeconfigYaml) =>
    createKubeCluster({
      kubeconfigYaml,
      name,
      enableEndpointSlices: options.enableEndpointSlices,
      kinds: REMOTE_KINDS,
      logger: options.logger.child({ component: "k8s", cluster: name }),
      metrics: clusterMetrics(options.metrics, name),
    });
}
