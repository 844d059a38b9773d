import type { KubeObject } from "@destination/core";
import { type AuditSource, MemoryCluster, type ResourceKind } from "@destination/k8s-discovery";
import { TimeSlices } from "./time-slices.js";

/** The kinds whose objects shape a Get answer; ServiceProfiles do not. */
export const GET_KINDS: readonly ResourceKind[] = [
  "Service",
  "EndpointSlice",
  "Endpoints",
  "Pod",
  "Server",
  "ExternalWorkload",
  "Node",
  "ReplicaSet",
  "Job",
];

/** What the API server said, kind by kind, and a cluster holding it. */
export interface FreshState<W = undefined> {
  /** What `prepare` built on the cluster before anything was loaded into it. */
  readonly prepared: W;
  /** A throwaway in-memory cluster, synced, holding every listed object. */
  readonly cluster: MemoryCluster;
  /** The listed objects by kind, as listed (each with its `kind`). */
  readonly objects: ReadonlyMap<ResourceKind, readonly KubeObject[]>;
}

/**
 * Lists `kinds` from the API server one kind after the other (each paged by the loop's page
 * size), so the audit never has two lists in flight, into an in-memory cluster with the
 * versions as listed. Kinds the cluster does not serve list empty, as their caches are.
 * `prepare` runs on the empty cluster first: a watcher built there registers its handlers
 * before any object arrives, as the server's do before its caches start.
 */
export async function listFreshState<W>(
  source: AuditSource,
  kinds: Iterable<ResourceKind>,
  prepare: (cluster: MemoryCluster) => W,
  stopped: () => boolean = () => false,
  slices: TimeSlices = new TimeSlices(),
): Promise<FreshState<W>> {
  const cluster = new MemoryCluster({ keepVersions: true });
  const prepared = prepare(cluster);
  const objects = new Map<ResourceKind, readonly KubeObject[]>();
  for (const kind of kinds) {
    if (stopped()) break;
    const listed = (await source.listFresh(kind)).map((obj) =>
      obj.kind === kind ? obj : { ...obj, kind },
    );
    objects.set(kind, listed);
    // Object by object rather than one `replace`: the watchers index each as it lands, and the
    // event loop gets a turn every few milliseconds (a replace of 50k pods held it ~0.4 s).
    const cache = cluster.cache(kind);
    for (const obj of listed) {
      cache.apply(obj);
      await slices.pause();
    }
    cache.markSynced();
  }
  await cluster.start();
  return { prepared, cluster, objects };
}
