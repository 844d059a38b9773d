// Public API of @destination/core: the address model, listener contracts, object shapes and
// the rules about them, with no I/O; its one dependency is go-compat (Go's IP grammar).

// For users: Kubernetes and Linkerd objects, and the rules Linkerd reads from them (selectors,
// opaque ports, Server opacity, owners, zones, IP keys).

export type { Address, AddressId, AddressSet, AddressSetEntry } from "./address.js";
export { addressIdKey, newAddress } from "./address.js";
export { InvalidServiceError } from "./errors.js";
export { canonicalIp } from "./ip.js";
export type { LabelMatcher, Labels } from "./label-selector.js";
export { compileSelector, InvalidSelectorError } from "./label-selector.js";
export type { NamespacedName } from "./namespaced-name.js";
export { namespacedNameKey } from "./namespaced-name.js";
export { nodeZoneOf } from "./node-zone.js";
export type * from "./objects/core.js";
export type * from "./objects/discovery.js";
export type * from "./objects/linkerd.js";
export type * from "./objects/meta.js";
export {
  externalWorkloadOpaquePorts,
  OPAQUE_PORTS_ANNOTATION,
  parseDefaultOpaquePorts,
  parsePortRange,
  podOpaquePorts,
  serviceOpaquePorts,
} from "./opaque-ports.js";
export type { Owner, OwnerMetadataLookup } from "./owner.js";
export { resolvePodOwner } from "./owner.js";
export type { PodPortMatchOptions } from "./server-opacity.js";
export {
  externalWorkloadPortOpaqueByServers,
  podPortOpaqueByServers,
  serverPortMatchesExternalWorkload,
  serverPortMatchesPod,
  serverSelectsExternalWorkload,
  serverSelectsPod,
} from "./server-opacity.js";

// For authors of watchers: listener contracts, the registry and serial queue every watcher
// keeps, and the logging, metrics and time a watcher is given.

export type { Clock } from "./clock.js";
export { systemClock, unrefTimer } from "./clock.js";
export type {
  EndpointsListener,
  OpaquePortsListener,
  ProfileListener,
  WorkloadListener,
} from "./listeners.js";
export type { Logger } from "./logger.js";
export { silentLogger } from "./logger.js";
export type {
  BoundCounter,
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricLabels,
  MetricsRegistry,
} from "./metrics.js";
export { labelKey, noopMetrics } from "./metrics.js";
export type {
  LingerTimers,
  Publisher,
  PublisherRegistryOptions,
} from "./subscription/publisher-registry.js";
export { PublisherRegistry } from "./subscription/publisher-registry.js";
export type { SerialQueueOptions } from "./subscription/serial-queue.js";
export { SerialQueue } from "./subscription/serial-queue.js";
export type { Subscription } from "./subscription/subscription.js";
export { SubscriptionList } from "./subscription/subscription-list.js";
