export type { Address, AddressId, AddressSet, AddressSetEntry } from "./address.js";
export { addressIdKey, emptyAddressSet, newAddress } from "./address.js";
export type { CacheEventHandler, CacheStats, ResourceCache } from "./cache.js";
export { keyOf, objectKey } from "./cache.js";
export type { Cluster, ClusterIndexes } from "./cluster.js";
export { clusterCache } from "./cluster-cache.js";
export { podIsLive, SERVICE_NAME_LABEL } from "./cluster-indexes.js";
export type { ClusterMetrics, WatchErrorReason, WatchEventType } from "./cluster-metrics.js";
export {
  CACHE_SIZE_METRICS,
  CLUSTER_METRIC_NAMES,
  clusterMetrics,
  INFORMER_LAG_BUCKETS,
  INFORMER_LAG_METRICS,
  noopClusterMetrics,
  registerCacheSizeMetrics,
} from "./cluster-metrics.js";
export { InvalidServiceError } from "./errors.js";
export { informerLagSeconds, latestUpdateTime } from "./informer-lag.js";
export { canonicalIp, joinHostPort } from "./ip.js";
export type { ApiResource } from "./kube/api-resource.js";
export type { BackoffPolicy } from "./kube/backoff.js";
export type { KubeCluster, KubeClusterOptions, NamespacedWatch } from "./kube/kube-cluster.js";
export { createKubeCluster } from "./kube/kube-cluster.js";
export type { KubeConfig, KubeConfigSource } from "./kube/kube-config.js";
export { loadKubeConfig } from "./kube/kube-config.js";
export type { WatchStore } from "./kube/reflector.js";
export type { LabelMatcher, Labels } from "./label-selector.js";
export { compileSelector, InvalidSelectorError, selectorMatches } from "./label-selector.js";
export type {
  EndpointsListener,
  OpaquePortsListener,
  ProfileListener,
  WorkloadListener,
} from "./listeners.js";
export type { Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export type { ManifestsCluster, ManifestsClusterOptions } from "./manifests/manifests-cluster.js";
export { createManifestsCluster } from "./manifests/manifests-cluster.js";
export type { IndexDefinition } from "./memory/memory-cache.js";
export { MemoryCache } from "./memory/memory-cache.js";
export type { MemoryClusterOptions } from "./memory/memory-cluster.js";
export { MemoryCluster } from "./memory/memory-cluster.js";
export type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricLabels,
  MetricsRegistry,
} from "./metrics.js";
export { InMemoryMetrics, labelKey, noopMetrics } from "./metrics.js";
export { nodeZoneOf } from "./node-zone.js";
export type * from "./objects/core.js";
export type * from "./objects/discovery.js";
export type * from "./objects/linkerd.js";
export type * from "./objects/meta.js";
export {
  externalWorkloadOpaquePorts,
  OPAQUE_PORTS_ANNOTATION,
  parseDefaultOpaquePorts,
  parseOpaquePorts,
  parsePortRange,
  podOpaquePorts,
  serviceOpaquePorts,
} from "./opaque-ports.js";
export type { Owner, OwnerMetadataLookup } from "./owner.js";
export { resolvePodOwner } from "./owner.js";
export type { ResourceKind, ResourceKindInfo } from "./resource-kind.js";
export { apiVersionOf, RESOURCE_KINDS } from "./resource-kind.js";
export type { SecretSource, SecretWatch } from "./secret-source.js";
export { SECRETS_RESOURCE, secretSourceOf } from "./secret-source.js";
export type { PodPortMatchOptions } from "./server-opacity.js";
export {
  externalWorkloadPortOpaqueByServers,
  podPortOpaqueByServers,
  serverPortMatchesExternalWorkload,
  serverPortMatchesPod,
  serverSelectsExternalWorkload,
  serverSelectsPod,
} from "./server-opacity.js";
export type {
  LingerTimers,
  Publisher,
  PublishersOptions,
  Subscription,
} from "./subscription/publishers.js";
export { newSubscription, Publishers } from "./subscription/publishers.js";
