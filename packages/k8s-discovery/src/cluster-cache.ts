import type { KubeObject } from "@destination/core";
import type { ResourceCache } from "./cache.js";
import type { Cluster } from "./cluster.js";
import type { ResourceKind } from "./resource-kind.js";

const CACHE_PROPERTY = {
  Service: "services",
  EndpointSlice: "endpointSlices",
  Endpoints: "endpoints",
  Pod: "pods",
  ServiceProfile: "serviceProfiles",
  Server: "servers",
  ExternalWorkload: "externalWorkloads",
  Node: "nodes",
  ReplicaSet: "replicaSets",
  Job: "jobs",
} as const satisfies Record<ResourceKind, keyof Cluster>;

/** The cache of one kind, for code that loops over kinds (metrics, tests). */
export function clusterCache(cluster: Cluster, kind: ResourceKind): ResourceCache<KubeObject> {
  return cluster[CACHE_PROPERTY[kind]] as ResourceCache<KubeObject>;
}
