import type { KubeObject } from "@destination/core";
import type { Cluster } from "./cluster.js";
import type { ResourceKind } from "./resource-kind.js";

/**
 * What a self-audit needs from a backend that reads an API server: the API server's answer now,
 * beside the caches, and a way to make the caches read it again. Kept apart from `Cluster`, as
 * `SecretSource` is, so the memory and manifests backends need not pretend to have one.
 */
export interface AuditSource {
  /**
   * A fresh, consistent list of one kind, paged (`limit`/`continue`) and read and projected as
   * the cache's own loop reads it, returned without touching the cache. A kind the cluster does
   * not serve lists empty, as its cache is.
   */
  listFresh(kind: ResourceKind): Promise<KubeObject[]>;
  /**
   * Makes the loops of these kinds list again now and reconcile their caches (a relist, as after
   * `410 Gone`); resolves once each has. Kinds not served are skipped.
   */
  relist(kinds: Iterable<ResourceKind>): Promise<void>;
}

/** The cluster's audit source, when its backend has one (the cluster backend). */
export function auditSourceOf(cluster: Cluster): AuditSource | undefined {
  const candidate = cluster as Cluster & Partial<AuditSource>;
  return typeof candidate.listFresh === "function" && typeof candidate.relist === "function"
    ? (candidate as AuditSource)
    : undefined;
}
