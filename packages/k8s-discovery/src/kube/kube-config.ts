import { KubeConfig } from "@kubernetes/client-node";

/** Where the API server and credentials come from; the first option given wins. */
export interface KubeConfigSource {
  /** The pod's service account (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inCluster?: boolean;
  /** A kubeconfig document, e.g. from a multicluster link Secret. */
  readonly kubeconfigYaml?: string;
  /** A kubeconfig file. */
  readonly kubeconfigPath?: string;
  /**
   * The context to use instead of the file's `current-context`. Without any of the options
   * above, the standard rules apply: `$KUBECONFIG`, then `~/.kube/config`, then in-cluster.
   */
  readonly context?: string;
}

/** Loads a kubeconfig the way `kubectl` would; throws when the named context does not exist. */
export function loadKubeConfig(source: KubeConfigSource = {}): KubeConfig {
  const config = new KubeConfig();
  if (source.inCluster) {
    if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) {
      throw new Error("not running in a cluster: KUBERNETES_SERVICE_HOST/PORT are not set");
    }
    config.loadFromCluster();
  } else if (source.kubeconfigYaml !== undefined) config.loadFromString(source.kubeconfigYaml);
  else if (source.kubeconfigPath) config.loadFromFile(source.kubeconfigPath);
  else config.loadFromDefault();
  if (source.context) {
    if (!config.getContextObject(source.context)) {
      throw new Error(`kubeconfig has no context named ${JSON.stringify(source.context)}`);
    }
    config.setCurrentContext(source.context);
  }
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new Error("kubeconfig names no API server for the current context");
  return config;
}
