/** Where the binaries of one Kubernetes version live. */
export interface Binaries {
  /** Absolute path of the kube-apiserver binary. */
  kubeApiServer: string;
  /** Absolute path of the etcd binary. */
  etcd: string;
  /** The Kubernetes release, e.g. "v1.37.2". */
  k8sVersion: string;
  /** The etcd release, e.g. "v3.7.0". */
  etcdVersion: string;
  /** The cache directory of this version. */
  dir: string;
}

export interface ProvisionOptions {
  /** Kubernetes release to build; default K8S_VERSION or DEFAULT_K8S_VERSION. */
  k8sVersion?: string;
  /** etcd release; default K8S_ENV_ETCD_VERSION or the one k8s.io/kubernetes's go.mod requires. */
  etcdVersion?: string;
  /** Cache root; default K8S_ENV_CACHE_DIR or ~/.cache/destination-k8s-env. */
  cacheDir?: string;
  /** Progress sink; default writes "[k8s-env] ..." lines to stderr. */
  log?: (line: string) => void;
}

export declare const DEFAULT_K8S_VERSION: string;

export declare function resolveProvisionConfig(options?: ProvisionOptions): {
  k8sVersion: string;
  cacheRoot: string;
  dir: string;
  etcdVersion: string | undefined;
  log: (line: string) => void;
};

/**
 * Ensures kube-apiserver and etcd are built and cached for the chosen Kubernetes version,
 * building them with `go` on first use (minutes); later calls return at once.
 */
export declare function ensureBinaries(options?: ProvisionOptions): Promise<Binaries>;

/** The k8s.io/* modules that a k8s.io/kubernetes go.mod requires at v0.0.0 (its staging repos). */
export declare function stagingModules(goMod: string): string[];

/** The etcd release a k8s.io/kubernetes go.mod requires. */
export declare function etcdVersionOf(goMod: string): string;

export declare function formatDuration(ms: number): string;
