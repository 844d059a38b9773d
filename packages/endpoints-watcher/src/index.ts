// Public API of @destination/endpoints-watcher: the watcher that folds Services, EndpointSlices
// (or Endpoints) and Servers into one live address set per subscribed service port and filter
// key, and tells listeners what was added and removed.

// For users: the watcher and its subscription key, and what a program needs to run one with
// this package alone (README, "Install"): the listener's types, and the clusters to watch, from
// a Kubernetes API server, a folder of manifests or memory.

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
export type { FilterKey } from "./address-filter.js";
export type { EndpointsWatcherOptions } from "./endpoints-watcher.js";
export { EndpointsWatcher } from "./endpoints-watcher.js";

// For authors of servers: which addresses of a Service's slices are served and why the others
// are not, as Get serves them (the server's `/debug/endpoints`).

export {
  type AddressVerdict,
  explainSliceAddresses,
  type SliceExplanation,
} from "./address-explanation.js";
export type { NotServedReason } from "./slice-addresses.js";
