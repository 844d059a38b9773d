import type { KubeObject } from "@destination/core";
import type { Cluster, ResourceKind } from "@destination/k8s-discovery";

/** One object the caches hold at another version than the API server listed (or not at all). */
export interface ObjectDifference {
  readonly kind: ResourceKind;
  readonly namespace: string;
  readonly name: string;
  /** The resourceVersion in the cache; absent when the cache lacks the object. */
  readonly cached?: string;
  /** The resourceVersion listed; absent when the API server no longer has it. */
  readonly listed?: string;
}

/** A kind's cache of a cluster. */
export function cacheOf(cluster: Cluster, kind: ResourceKind): { list(): readonly KubeObject[] } {
  switch (kind) {
    case "Service":
      return cluster.services;
    case "EndpointSlice":
      return cluster.endpointSlices;
    case "Endpoints":
      return cluster.endpoints;
    case "Pod":
      return cluster.pods;
    case "ServiceProfile":
      return cluster.serviceProfiles;
    case "Server":
      return cluster.servers;
    case "ExternalWorkload":
      return cluster.externalWorkloads;
    case "Node":
      return cluster.nodes;
    case "ReplicaSet":
      return cluster.replicaSets;
    case "Job":
      return cluster.jobs;
  }
}

/**
 * The objects on which the caches and fresh lists disagree, by name and resourceVersion: what
 * tells which kinds to relist, and what a bug report needs to reproduce a divergence.
 */
export function objectDifferences(
  cluster: Cluster,
  listed: ReadonlyMap<ResourceKind, readonly KubeObject[]>,
): ObjectDifference[] {
  const differences: ObjectDifference[] = [];
  for (const [kind, objects] of listed) {
    const cached = new Map<string, string>();
    for (const obj of cacheOf(cluster, kind).list()) {
      cached.set(nameOf(obj), obj.metadata.resourceVersion ?? "");
    }
    for (const obj of objects) {
      const id = nameOf(obj);
      const version = obj.metadata.resourceVersion ?? "";
      const inCache = cached.get(id);
      cached.delete(id);
      if (inCache !== version) {
        differences.push({
          kind,
          ...split(obj),
          listed: version,
          ...(inCache === undefined ? {} : { cached: inCache }),
        });
      }
    }
    for (const [id, version] of cached) {
      const [namespace = "", name = ""] = id.split("/");
      differences.push({ kind, namespace, name, cached: version });
    }
  }
  return differences;
}

function nameOf(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

function split(obj: KubeObject): { namespace: string; name: string } {
  return { namespace: obj.metadata.namespace ?? "", name: obj.metadata.name };
}
