import type { Cluster, Owner, Pod } from "@destination/k8s-discovery";

/**
 * The pod's owner when the metadata caches can answer it, undefined on a cache miss (the case
 * where K-16 `retry=true` would ask the API server). `Cluster.podOwner` falls back silently on a
 * miss, so the miss is detected here: only a single ReplicaSet or Job parent needs a lookup.
 */
export function cachedPodOwner(cluster: Cluster, pod: Pod): Owner | undefined {
  const refs = pod.metadata.ownerReferences ?? [];
  const parent = refs.length === 1 ? refs[0] : undefined;
  const namespace = pod.metadata.namespace ?? "";
  if (parent?.kind === "ReplicaSet" && !cluster.replicaSets.get(namespace, parent.name)) {
    return undefined;
  }
  if (parent?.kind === "Job" && !cluster.jobs.get(namespace, parent.name)) return undefined;
  return cluster.podOwner(pod);
}

/** K-16 with retry: the API answer, or the cache-only fallback when the fetch fails. */
export async function fetchPodOwner(cluster: Cluster, pod: Pod): Promise<Owner> {
  try {
    return await cluster.fetchPodOwner(pod);
  } catch {
    return cluster.podOwner(pod);
  }
}
