import { KubeConfig } from "@kubernetes/client-node";

export { KubeConfig };

/** Where the API server and credentials come from; the first option given wins. */
export interface KubeConfigSource {
  /** The pod's service account (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inCluster?: boolean;
  /**
   * Read the service account's files under this folder instead of `/` (client-node's
   * `loadFromCluster(pathPrefix)`): for a service account mounted elsewhere, and for tests.
   */
  readonly serviceAccountPathPrefix?: string;
  /** A kubeconfig document, e.g. from a multicluster link Secret. */
  readonly kubeconfigYaml?: string;
  /** A kubeconfig file. */
  readonly kubeconfigPath?: string;
  /**
   * The context to use instead of the configuration's `current-context`. Without any of the
   * options above, client-node's `loadFromDefault()` applies: the files of `$KUBECONFIG`
   * merged, then `~/.kube/config`, then the service account, then `http://localhost:8080`.
   */
  readonly context?: string;
}

/**
 * Loads the configuration with `@kubernetes/client-node`'s `KubeConfig`, which then sets TLS
 * options and credentials on every request (`applyToHTTPSOptions`): exec plugins, auth
 * providers, token files and proxies are client-node's. Throws when the configuration cannot
 * be read, names no context given, or names no API server.
 */
export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  const config = new KubeConfig();
  try {
    if (source.inCluster) {
      if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) {
        throw new Error("not running in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set");
      }
      config.loadFromCluster(source.serviceAccountPathPrefix);
    } else if (source.kubeconfigYaml !== undefined) config.loadFromString(source.kubeconfigYaml);
    else if (source.kubeconfigPath) config.loadFromFile(source.kubeconfigPath);
    // As kubectl, the first file of `$KUBECONFIG` sets the current context; client-node
    // rejects a cluster, user or context named in two files.
    else config.loadFromDefault(undefined, true);
  } catch (err) {
    throw new Error(`cannot load the kubeconfig: ${(err as Error).message}`, { cause: err });
  }
  if (source.context) {
    if (config.getContextObject(source.context) === null) {
      throw new Error(`kubeconfig has no context named ${JSON.stringify(source.context)}`);
    }
    config.setCurrentContext(source.context);
  }
  apiServerOf(config);
  return config;
}

/** The API server of the config's current context, without a trailing slash. */
export function apiServerOf(config: KubeConfig): string {
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error("kubeconfig names no API server for the current context");
  return server.replace(/\/$/, "");
}
