// Public API of @destination/k8s-discovery: typed caches of the objects the destination service
// reads, with events and indexes, from a Kubernetes API server, a folder of manifests or memory.

// For users: a cluster to watch, its caches and indexes, and what they hold.

export type { CacheEventHandler, CacheStats, ResourceCache } from "./cache.js";
export { keyOf, objectKey } from "./cache.js";
export type { Cluster, ClusterIndexes } from "./cluster.js";
export { podIsLive, SERVICE_NAME_LABEL } from "./cluster-indexes.js";
export type { KubeCluster, KubeClusterOptions } from "./kube/kube-cluster.js";
export type { KubeConfig, KubeConfigSource } from "./kube/kube-config.js";
// The cluster backend is loaded when first asked for, not with this entry (README, "Import cost").
export { createKubeCluster, loadKubeConfig } from "./kube/load-kube-backend.js";
export { KubeApiError } from "./kube/watch-event.js";
export type { ManifestsCluster, ManifestsClusterOptions } from "./manifests/manifests-cluster.js";
export { createManifestsCluster } from "./manifests/manifests-cluster.js";
export type { IndexDefinition } from "./memory/memory-cache.js";
export { MemoryCache } from "./memory/memory-cache.js";
export type { MemoryClusterOptions } from "./memory/memory-cluster.js";
export { MemoryCluster } from "./memory/memory-cluster.js";
export type { ResourceKind, ResourceKindInfo } from "./resource-kind.js";
export { apiVersionOf, RESOURCE_KINDS } from "./resource-kind.js";

// For authors composing a server: the API server's own requests, re-lists and Secrets, the
// backend's metrics and informer lag, and the projection the caches apply.

export type { AuditSource } from "./cluster.js";
export { auditSourceOf, clusterCache } from "./cluster.js";
export type { ClusterMetrics, WatchErrorReason, WatchEventType } from "./cluster-metrics.js";
export {
  CACHE_SIZE_METRICS,
  CLUSTER_METRIC_NAMES,
  clusterMetrics,
  INFORMER_LAG_BUCKETS,
  INFORMER_LAG_METRICS,
  registerCacheSizeMetrics,
} from "./cluster-metrics.js";
export { informerLagSeconds } from "./informer-lag.js";
export { DEFAULT_API_SILENCE_TIMEOUT_MS } from "./kube/api-liveness.js";
export type { ApiResource } from "./kube/api-resource.js";
export type { BackoffPolicy } from "./kube/backoff.js";
export type { KubeApi, NamespacedWatch } from "./kube/kube-cluster.js";
export type { KubeRequest } from "./kube/kube-http.js";
export type { KubeBackend } from "./kube/load-kube-backend.js";
export { loadKubeBackend } from "./kube/load-kube-backend.js";
export type { WatchStore } from "./kube/reflector.js";
export type { KubeStatus } from "./kube/watch-event.js";
export { latestUpdateTime } from "./managed-fields.js";
export type { SecretSource, SecretWatch } from "./secret-source.js";
export { SECRETS_RESOURCE, secretSourceOf } from "./secret-source.js";
export { projectObject } from "./validation/object-schemas.js";
