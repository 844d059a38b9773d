import type { KubeCluster, KubeClusterOptions } from "./kube-cluster.js";
import type { KubeConfig, KubeConfigSource } from "./kube-config.js";

/** The cluster backend once loaded: its functions then answer at once. */
export interface KubeBackend {
  /** A cluster backed by a Kubernetes API server; throws on a bad kubeconfig. */
  createKubeCluster(options: KubeClusterOptions): KubeCluster;
  /** client-node's `KubeConfig`, loaded from the first source given. */
  loadKubeConfig(source?: KubeConfigSource): KubeConfig;
}

/**
 * Loads the cluster backend, `@kubernetes/client-node` included (about half a second on an idle
 * machine), on the first call; later calls get the same module. Importing this package does not
 * load it, so a user of the manifests or memory backend never pays for it. For a caller that must
 * create clusters synchronously later (the multicluster store's factory).
 */
export function loadKubeBackend(): Promise<KubeBackend> {
  return import("./kube-backend.js");
}

/**
 * A cluster backed by a Kubernetes API server, once the backend is loaded (`loadKubeBackend`).
 * Rejects on a bad kubeconfig; `start()` runs the startup checks and the list/watch loops.
 */
export async function createKubeCluster(options: KubeClusterOptions): Promise<KubeCluster> {
  return (await loadKubeBackend()).createKubeCluster(options);
}

/** `@kubernetes/client-node`'s `KubeConfig`, loaded from the first source given (README). */
export async function loadKubeConfig(source: KubeConfigSource = {}): Promise<KubeConfig> {
  return (await loadKubeBackend()).loadKubeConfig(source);
}
