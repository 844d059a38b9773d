import { type Owner, type Pod, resolvePodOwner } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";

/**
 * The pod's owner when the metadata caches can answer it, undefined on a cache miss (the case
 * where this watcher, unlike the endpoints watcher, asks the API server). `Cluster.podOwner`
 * falls back silently on a miss, so the shared resolution runs here with a lookup that notes
 * whether any read missed.
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

/**
 * The owner as the API server tells it, or the cache-only fallback (the ReplicaSet or Job name)
 * when the fetch fails. See README "Owners".
 */
export async function fetchPodOwner(cluster: Cluster, pod: Pod): Promise<Owner> {
  try {
    return await cluster.fetchPodOwner(pod);
  } catch {
    return cluster.podOwner(pod);
  }
}
