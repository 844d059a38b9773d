import { type Owner, type Pod, resolvePodOwner } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";

/**
 * The pod's owner when the metadata caches can answer it, undefined on a cache miss (the case
 * where K-16 `retry=true` would ask the API server). `Cluster.podOwner` falls back silently on a
 * miss, so the shared resolution runs here with a lookup that notes whether any read missed.
 */
export function cachedPodOwner(cluster: Cluster, pod: Pod): Owner | undefined {
  let missed = false;
  const owner = resolvePodOwner(pod, (kind, namespace, name) => {
    const found = (kind === "Job" ? cluster.jobs : cluster.replicaSets).get(namespace, name);
    if (found === undefined) missed = true;
    return found;
  });
  return missed ? undefined : owner;
}

/** K-16 with retry: the API answer, or the cache-only fallback when the fetch fails. */
export async function fetchPodOwner(cluster: Cluster, pod: Pod): Promise<Owner> {
  try {
    return await cluster.fetchPodOwner(pod);
  } catch {
    return cluster.podOwner(pod);
  }
}
