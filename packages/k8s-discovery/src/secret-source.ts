import type { Secret } from "@destination/core";
import type { Cluster } from "./cluster.js";
import type { ApiResource } from "./kube/api-resource.js";
import type { WatchStore } from "./kube/reflector.js";

/** A running watch of the Secrets of one namespace; `stop()` ends it. */
export interface SecretWatch {
  stop(): Promise<void>;
}

/**
 * Secrets of one namespace, for the multicluster cluster store only. Kept
 * apart from the `Cluster` caches so that no watcher, metric or relist of the other kinds
 * changes: a backend that can carry Secrets implements this next to `Cluster`.
 */
export interface SecretSource {
  /** Fills `store` with the namespace's Secrets (the first `replace` is the initial list). */
  watchSecrets(namespace: string, store: WatchStore<Secret>): SecretWatch;
}

/** core/v1 Secrets, as `KubeCluster.watchNamespaced` reads them. */
export const SECRETS_RESOURCE: ApiResource = {
  kind: "Secret",
  group: "",
  version: "v1",
  plural: "secrets",
};

/** The cluster's Secret source, when its backend has one. */
export function secretSourceOf(cluster: Cluster): SecretSource | undefined {
  const candidate = cluster as Cluster & Partial<SecretSource>;
  return typeof candidate.watchSecrets === "function" ? (candidate as SecretSource) : undefined;
}
