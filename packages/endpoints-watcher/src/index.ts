// Besides the watcher, this entry re-exports what a program needs to run one with this package
// alone (README, "Install"): the listener's types, and the clusters to watch, from a Kubernetes
// API server, a folder of manifests or memory.
export type { Address, AddressSet, EndpointsListener } from "@destination/core";
export type {
  Cluster,
  KubeCluster,
  KubeClusterOptions,
  ManifestsCluster,
  ManifestsClusterOptions,
} from "@destination/k8s-discovery";
export {
  createKubeCluster,
  createManifestsCluster,
  MemoryCluster,
} from "@destination/k8s-discovery";
export {
  type AddressVerdict,
  explainSliceAddresses,
  type SliceExplanation,
} from "./address-explanation.js";
export type { EndpointsWatcherOptions } from "./endpoints-watcher.js";
export { EndpointsWatcher } from "./endpoints-watcher.js";
export type { FilterKey } from "./filter-key.js";
export type { NotServedReason } from "./not-served-reason.js";
export { serviceTargetPort, slicePort, type TargetPort } from "./target-port.js";
