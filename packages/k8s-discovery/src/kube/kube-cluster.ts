import {
  type Clock,
  type KubeObject,
  type Logger,
  type Owner,
  type OwnerMetadataLookup,
  type PartialObjectMetadata,
  type Pod,
  resolvePodOwner,
  type Secret,
  silentLogger,
} from "@destination/core";
import type { AuditSource, Cluster } from "../cluster.js";
import { type ClusterMetrics, withDefaultMetrics } from "../cluster-metrics.js";
import { MemoryBackedCluster } from "../memory/memory-backed-cluster.js";
import { MemoryCluster } from "../memory/memory-cluster.js";
import { DEFAULT_RESYNC_MS, startPeriodicResync } from "../periodic-resync.js";
import { RESOURCE_KINDS, type ResourceKind, toObjectMetadata } from "../resource-kind.js";
import { SECRETS_RESOURCE, type SecretSource, type SecretWatch } from "../secret-source.js";
import { checkApiAccess } from "./api-access.js";
import { type ApiResource, METADATA_ACCEPT, objectPath } from "./api-resource.js";
import type { BackoffPolicy } from "./backoff.js";
import { type KubeConfig, type KubeConfigSource, loadKubeConfig } from "./kube-config.js";
import { KubeHttpClient, type KubeRequest } from "./kube-http.js";
import { noopReflectorMetrics, Reflector, type WatchStore } from "./reflector.js";

export interface KubeClusterOptions extends KubeConfigSource {
  /** `--enable-endpoint-slices`: cache EndpointSlices, else Endpoints (never both). */
  readonly enableEndpointSlices: boolean;
  /**
   * A `KubeConfig` of `@kubernetes/client-node`, loaded by the caller any way it allows; the
   * `KubeConfigSource` options are then ignored.
   */
  readonly kubeConfig?: KubeConfig;
  /** `local`, or a remote cluster's name (a metrics label). */
  readonly name?: string;
  readonly logger?: Logger;
  readonly metrics?: Partial<ClusterMetrics>;
  /** Periodic resync (`update(obj, obj)` for every object); 10 min by default, 0 turns it off. */
  readonly resyncMs?: number;
  /** Reconnect backoff; 250 ms doubling up to 30 s, with full jitter, by default. */
  readonly backoff?: BackoffPolicy;
  /** Server-side watch timeout range in seconds; 300 to 600 by default. */
  readonly watchTimeoutSeconds?: readonly [min: number, max: number];
  /** Objects per list page; 500 by default. */
  readonly pageSize?: number;
  /**
   * How long a connection to the API server may show no life (README "Dead connections"):
   * response headers and list bytes within it, TCP keepalive failing a dead path within it
   * (11 s at least), a watch's event, bookmark or byte within it plus 60 s. 12 s by default.
   */
  readonly apiSilenceTimeoutMs?: number;
  /**
   * Cache only these kinds (the others stay empty and synced): a remote cluster of the cluster
   * store has no ExternalWorkload, Job, Node or ServiceProfile cache, as upstream.
   */
  readonly kinds?: Iterable<ResourceKind>;
  /** The clock of the loops' backoff and of the periodic resync; the system's by default. */
  readonly clock?: Clock;
}

/** A running list/watch of one namespaced resource (see `KubeCluster.watchNamespaced`). */
export interface NamespacedWatch {
  stop(): Promise<void>;
}

/**
 * Requests of the caller's own to the cluster's API server, writes included, made by the client
 * the list/watch loops use: the same agent, and the TLS options and credentials that client-node's
 * `KubeConfig` applies to every request.
 */
export interface KubeApi {
  /** The JSON body of a 2xx answer; anything else rejects with `KubeApiError`. */
  json<T>(request: KubeRequest): Promise<T>;
}

/** A cluster backed by a Kubernetes API server. */
export interface KubeCluster extends Cluster, SecretSource, AuditSource {
  /** This cluster's API server, for requests beyond the caches (the ExternalWorkload controller's writes). */
  readonly api: KubeApi;
  /**
   * Lists and watches one resource in one namespace into the caller's store, with the same
   * loop, backoff and relist rules as the caches of this cluster. This is where multicluster's
   * Secret cache plugs in (Secrets of type `mirror.linkerd.io/remote-kubeconfig` in
   * `--controller-namespace`, read with `{group: "", version: "v1", plural: "secrets"}`);
   * a remote cluster is then `createKubeCluster({ kubeconfigYaml, name })`.
   */
  watchNamespaced<T extends KubeObject>(
    resource: ApiResource,
    namespace: string,
    store: WatchStore<T>,
  ): NamespacedWatch;
}

/**
 * The cluster backend: the caches (README "Caches") filled by list/watch loops against an API
 * server. The config is loaded here (throws on a bad kubeconfig); `start()` runs the startup
 * checks (throws on a fatal one) and starts the loops; `whenSynced()` resolves once every cache
 * holds its initial list.
 */
export function createKubeCluster(options: KubeClusterOptions): KubeCluster {
  return new KubeBackend(options);
}

const ALWAYS_CACHED: readonly ResourceKind[] = ["Service", "Pod", "Node", "ReplicaSet", "Job"];
const CRDS: readonly ResourceKind[] = ["ServiceProfile", "Server", "ExternalWorkload"];

class KubeBackend extends MemoryBackedCluster implements KubeCluster {
  readonly #options: KubeClusterOptions;
  readonly #client: KubeHttpClient;
  readonly #logger: Logger;
  readonly #metrics: ClusterMetrics;
  readonly #reflectors = new Map<ResourceKind, Reflector<KubeObject>>();
  readonly #kinds: ReadonlySet<ResourceKind> | undefined;
  #servedKinds: ReadonlySet<ResourceKind>;
  #stopResync: () => void = () => {};
  #started = false;
  #stopped = false;

  constructor(options: KubeClusterOptions) {
    const logger = options.logger ?? silentLogger;
    const metrics = withDefaultMetrics(options.metrics);
    super(
      new MemoryCluster({
        ...(options.name === undefined ? {} : { name: options.name }),
        logger,
        keepVersions: true,
        onInvalid: (kind) => metrics.errored(kind, "invalid"),
      }),
      metrics,
    );
    this.#options = options;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#client = new KubeHttpClient(options.kubeConfig ?? loadKubeConfig(options), {
      ...(options.apiSilenceTimeoutMs === undefined
        ? {}
        : { silenceTimeoutMs: options.apiSilenceTimeoutMs }),
    });
    // What will be cached if every CRD is installed; narrowed by API discovery in start().
    this.#kinds = options.kinds === undefined ? undefined : new Set(options.kinds);
    this.#servedKinds = this.#limited(
      new Set([
        ...ALWAYS_CACHED,
        options.enableEndpointSlices ? "EndpointSlice" : "Endpoints",
        ...CRDS,
      ]),
    );
  }

  get api(): KubeApi {
    return this.#client;
  }

  /** Known for sure once `start()` has resolved. */
  get servedKinds(): ReadonlySet<ResourceKind> {
    return this.#servedKinds;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("the cluster was already started");
    this.#started = true;
    const access = await checkApiAccess(this.#client, {
      enableEndpointSlices: this.#options.enableEndpointSlices,
    });
    if (this.#stopped) return;
    this.#servedKinds = this.#limited(access.servedKinds);
    if (access.missingCrds.length > 0) {
      this.#logger.warn(
        `serving without the Linkerd CRDs that are not installed: ${access.missingCrds.join("; ")}`,
        { missing: access.missingCrds },
      );
    }
    for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
      const cache = this.memory.cache(kind);
      if (!this.#servedKinds.has(kind)) {
        cache.markSynced(); // not served (other mode, missing CRD, remote cluster): stays empty
        continue;
      }
      const reflector = new Reflector<KubeObject>({
        client: this.#client,
        resource: RESOURCE_KINDS[kind],
        metadataOnly: RESOURCE_KINDS[kind].metadataOnly,
        store: cache,
        logger: this.#logger,
        metrics: {
          watchRestarted: () => this.#metrics.watchRestarted(kind),
          relisted: () => this.#metrics.relisted(kind),
          errored: (reason) => this.#metrics.errored(kind, reason),
          eventReceived: (type) => this.#metrics.eventReceived(kind, type),
        },
        ...this.#loopOptions(),
      });
      this.#reflectors.set(kind, reflector);
      reflector.start();
    }
    const resyncMs = this.#options.resyncMs ?? DEFAULT_RESYNC_MS;
    this.#stopResync = startPeriodicResync(
      resyncMs,
      () => this.memory.resync(),
      this.#options.clock,
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopResync();
    await Promise.all([...this.#reflectors.values()].map((r) => r.stop()));
  }

  async listFresh(kind: ResourceKind): Promise<KubeObject[]> {
    const reflector = this.#reflectors.get(kind);
    return reflector === undefined ? [] : await reflector.listFresh();
  }

  async relist(kinds: Iterable<ResourceKind>): Promise<void> {
    const loops = [...new Set(kinds)].flatMap((kind) => this.#reflectors.get(kind) ?? []);
    await Promise.all(loops.map((loop) => loop.relist()));
  }

  podOwner(pod: Pod): Owner {
    return resolvePodOwner(pod, this.#cachedParent(pod));
  }

  /** As `podOwner`, but a parent missing from its cache is read from the API. */
  async fetchPodOwner(pod: Pod): Promise<Owner> {
    const refs = pod.metadata.ownerReferences ?? [];
    const parent = refs.length === 1 ? refs[0] : undefined;
    const namespace = pod.metadata.namespace ?? "";
    if (
      (parent?.kind !== "ReplicaSet" && parent?.kind !== "Job") ||
      this.#parentCache(parent.kind).get(namespace, parent.name) !== undefined ||
      !this.#servedKinds.has(parent.kind)
    ) {
      return this.podOwner(pod);
    }
    const kind = parent.kind;
    const fetched = await this.#readMetadata(kind, namespace, parent.name).catch((err) => {
      this.#logger.warn(`reading ${kind} ${namespace}/${parent.name} failed; using its name`, {
        pod: `${namespace}/${pod.metadata.name}`,
        error: (err as Error).message,
      });
      return undefined;
    });
    return resolvePodOwner(pod, (k, _ns, name) =>
      k === kind && name === parent.name ? fetched : undefined,
    );
  }

  watchNamespaced<T extends KubeObject>(
    resource: ApiResource,
    namespace: string,
    store: WatchStore<T>,
  ): NamespacedWatch {
    const reflector = new Reflector<T>({
      client: this.#client,
      resource,
      namespace,
      metadataOnly: false,
      store,
      logger: this.#logger,
      metrics: noopReflectorMetrics,
      ...this.#loopOptions(),
    });
    reflector.start();
    return { stop: () => reflector.stop() };
  }

  watchSecrets(namespace: string, store: WatchStore<Secret>): SecretWatch {
    return this.watchNamespaced(SECRETS_RESOURCE, namespace, store);
  }

  #limited(kinds: ReadonlySet<ResourceKind>): ReadonlySet<ResourceKind> {
    const only = this.#kinds;
    return only === undefined ? kinds : new Set([...kinds].filter((k) => only.has(k)));
  }

  #loopOptions() {
    const { backoff, watchTimeoutSeconds, pageSize, clock, apiSilenceTimeoutMs } = this.#options;
    return {
      ...(apiSilenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: apiSilenceTimeoutMs }),
      ...(clock === undefined ? {} : { clock }),
      ...(backoff === undefined ? {} : { backoff }),
      ...(watchTimeoutSeconds === undefined ? {} : { watchTimeoutSeconds }),
      ...(pageSize === undefined ? {} : { pageSize }),
    };
  }

  #parentCache(kind: "ReplicaSet" | "Job") {
    return kind === "Job" ? this.jobs : this.replicaSets;
  }

  /** Cache reads for owner resolution; a miss of a served kind is worth a warning. */
  #cachedParent(pod: Pod): OwnerMetadataLookup {
    return (kind, namespace, name) => {
      const found = this.#parentCache(kind).get(namespace, name);
      if (found === undefined && this.#servedKinds.has(kind)) {
        this.#logger.warn(`${kind} ${namespace}/${name} is not in the cache; using its name`, {
          pod: `${namespace}/${pod.metadata.name}`,
        });
      }
      return found;
    };
  }

  async #readMetadata(
    kind: "ReplicaSet" | "Job",
    namespace: string,
    name: string,
  ): Promise<PartialObjectMetadata> {
    const info = RESOURCE_KINDS[kind];
    const obj = await this.#client.json<KubeObject>({
      path: objectPath(info, namespace, name),
      accept: `${METADATA_ACCEPT}, application/json`,
    });
    return toObjectMetadata(obj, info);
  }
}
