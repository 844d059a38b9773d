import { randomUUID } from "node:crypto";
import type {
  EndpointSlice,
  Endpoints,
  ExternalWorkload,
  KubeObject,
  Node,
  PartialObjectMetadata,
  Pod,
  Secret,
  Server,
  Service,
  ServiceProfile,
} from "@destination/core";
import { type Logger, type Owner, resolvePodOwner, silentLogger } from "@destination/core";
import type { Cluster } from "../cluster.js";
import {
  externalWorkloadIpIndex,
  memoryClusterIndexes,
  podHostPortIndex,
  podIpIndex,
  serviceClusterIpIndex,
  sliceServiceIndex,
} from "../cluster-indexes.js";
import type { WatchStore } from "../kube/reflector.js";
import { RESOURCE_KINDS, type ResourceKind } from "../resource-kind.js";
import type { SecretSource, SecretWatch } from "../secret-source.js";
import { MemoryCache } from "./memory-cache.js";

export interface MemoryClusterOptions {
  name?: string;
  logger?: Logger;
  /** Kinds reported as served; defaults to every kind. */
  servedKinds?: Iterable<ResourceKind>;
  /**
   * Keep the resourceVersion and uid an object arrives with (a backend mirroring a real API
   * server). By default every apply is stamped with a fresh resourceVersion, and a uid when it
   * has none, as an API server would.
   */
  keepVersions?: boolean;
  /**
   * Validate objects as they enter the caches (the default). The manifests backend turns it off:
   * it validates each document where it can name the file.
   */
  validate?: boolean;
  /** Called for each object a cache skipped as invalid (the cluster backend counts it). */
  onInvalid?: (kind: ResourceKind) => void;
}

/**
 * A cluster held in memory and fed by calls: the store behind the manifests backend, and the
 * programmatic backend of tests and benchmarks. Every mutation emits the same events a real
 * cluster's watch would, synchronously.
 */
export class MemoryCluster implements Cluster, SecretSource {
  readonly name: string;
  readonly services: MemoryCache<Service>;
  readonly endpointSlices: MemoryCache<EndpointSlice>;
  readonly endpoints: MemoryCache<Endpoints>;
  readonly pods: MemoryCache<Pod>;
  readonly serviceProfiles: MemoryCache<ServiceProfile>;
  readonly servers: MemoryCache<Server>;
  readonly externalWorkloads: MemoryCache<ExternalWorkload>;
  readonly nodes: MemoryCache<Node>;
  readonly replicaSets: MemoryCache<PartialObjectMetadata>;
  readonly jobs: MemoryCache<PartialObjectMetadata>;
  readonly indexes;
  readonly servedKinds: ReadonlySet<ResourceKind>;
  readonly #caches: Record<ResourceKind, MemoryCache<KubeObject>>;
  readonly #keepVersions: boolean;
  /** Secrets are no cache of their own: only `watchSecrets` (the cluster store) reads them. */
  readonly #secrets = new Map<string, Secret>();
  readonly #secretWatches = new Set<{ namespace: string; store: WatchStore<Secret> }>();
  #version = 0;

  constructor(options: MemoryClusterOptions = {}) {
    const logger = options.logger ?? silentLogger;
    const validate = options.validate ?? true;
    const onInvalid = options.onInvalid;
    // Each cache's options: the logger, validation, and the invalid-object hook of its kind.
    const opts = (kind: ResourceKind) => ({
      logger,
      validate,
      ...(onInvalid === undefined ? {} : { onInvalid: () => onInvalid(kind) }),
    });
    this.name = options.name ?? "local";
    this.#keepVersions = options.keepVersions ?? false;
    this.servedKinds = new Set(
      options.servedKinds ?? (Object.keys(RESOURCE_KINDS) as ResourceKind[]),
    );
    this.services = new MemoryCache("Service", {
      ...opts("Service"),
      indexes: [serviceClusterIpIndex],
    });
    this.endpointSlices = new MemoryCache("EndpointSlice", {
      ...opts("EndpointSlice"),
      indexes: [sliceServiceIndex],
    });
    this.endpoints = new MemoryCache("Endpoints", opts("Endpoints"));
    this.pods = new MemoryCache("Pod", {
      ...opts("Pod"),
      indexes: [podIpIndex, podHostPortIndex],
    });
    this.serviceProfiles = new MemoryCache("ServiceProfile", opts("ServiceProfile"));
    this.servers = new MemoryCache("Server", opts("Server"));
    this.externalWorkloads = new MemoryCache("ExternalWorkload", {
      ...opts("ExternalWorkload"),
      indexes: [externalWorkloadIpIndex],
    });
    this.nodes = new MemoryCache("Node", opts("Node"));
    this.replicaSets = new MemoryCache("ReplicaSet", opts("ReplicaSet"));
    this.jobs = new MemoryCache("Job", opts("Job"));
    this.#caches = {
      Service: this.services,
      EndpointSlice: this.endpointSlices,
      Endpoints: this.endpoints,
      Pod: this.pods,
      ServiceProfile: this.serviceProfiles,
      Server: this.servers,
      ExternalWorkload: this.externalWorkloads,
      Node: this.nodes,
      ReplicaSet: this.replicaSets,
      Job: this.jobs,
    } as Record<ResourceKind, MemoryCache<KubeObject>>;
    this.indexes = memoryClusterIndexes(this);
  }

  /** The cache of a kind. */
  cache(kind: ResourceKind): MemoryCache<KubeObject> {
    return this.#caches[kind];
  }

  /** Adds or updates an object, routed by its `kind`. Throws for a kind that is not cached. */
  apply<T extends KubeObject>(obj: T): void {
    if (obj.kind === "Secret") {
      this.#applySecret(obj as KubeObject as Secret);
      return;
    }
    this.cache(kindOf(obj)).apply(this.#stamp(obj));
  }

  /** Deletes an object; a no-op when it is not there. */
  delete(kind: ResourceKind | "Secret", namespace: string | undefined, name: string): void {
    if (kind === "Secret") {
      this.#deleteSecret(namespace ?? "default", name);
      return;
    }
    this.cache(kind).remove(namespace, name);
  }

  /** Replays the namespace's Secrets into `store`, then every later apply and delete. */
  watchSecrets(namespace: string, store: WatchStore<Secret>): SecretWatch {
    const watch = { namespace, store };
    store.replace([...this.#secrets.values()].filter((s) => s.metadata.namespace === namespace));
    this.#secretWatches.add(watch);
    return {
      stop: async () => {
        this.#secretWatches.delete(watch);
      },
    };
  }

  /** Replaces every object of a kind with a full list, as a relist does. */
  replace(kind: ResourceKind, objects: readonly KubeObject[]): void {
    const cache = this.cache(kind);
    // Versions from a server are compared as they are: content equality would hide an object
    // deleted and re-created with the same spec (a new uid) while disconnected.
    if (this.#keepVersions) {
      cache.replace(objects);
      return;
    }
    const stamped = objects.map((o) => {
      // Metadata is read defensively: the cache validates what this returns.
      const current = cache.get(o.metadata?.namespace ?? "", o.metadata?.name);
      return current !== undefined && sameContent(current, o) ? current : this.#stamp(o);
    });
    cache.replace(stamped);
  }

  /** The periodic resync of every cache: `update(obj, obj)` for every object. */
  resync(): void {
    for (const cache of Object.values(this.#caches)) cache.resync();
  }

  podOwner(pod: Pod): Owner {
    return resolvePodOwner(pod, (kind, namespace, name) =>
      (kind === "Job" ? this.jobs : this.replicaSets).get(namespace, name),
    );
  }

  fetchPodOwner(pod: Pod): Promise<Owner> {
    return Promise.resolve(this.podOwner(pod));
  }

  /** Marks every cache synced: what was applied before is the initial list. */
  async start(): Promise<void> {
    for (const cache of Object.values(this.#caches)) cache.markSynced();
  }

  whenSynced(): Promise<void> {
    return Promise.all(Object.values(this.#caches).map((c) => c.whenSynced())).then(() => {});
  }

  hasSynced(): boolean {
    return Object.values(this.#caches).every((c) => c.hasSynced());
  }

  async stop(): Promise<void> {}

  #applySecret(secret: Secret): void {
    const namespace = secret.metadata.namespace ?? "default";
    const key = `${namespace}/${secret.metadata.name}`;
    const current = this.#secrets.get(key);
    const stored: Secret = this.#keepVersions
      ? secret
      : {
          ...secret,
          metadata: {
            ...secret.metadata,
            namespace,
            resourceVersion: String(++this.#version),
            uid: secret.metadata.uid ?? current?.metadata.uid ?? randomUUID(),
          },
        };
    this.#secrets.set(key, stored);
    for (const watch of this.#secretWatches) {
      if (watch.namespace === namespace) watch.store.apply(stored);
    }
  }

  #deleteSecret(namespace: string, name: string): void {
    if (!this.#secrets.delete(`${namespace}/${name}`)) return;
    for (const watch of this.#secretWatches) {
      if (watch.namespace === namespace) watch.store.remove(namespace, name);
    }
  }

  #stamp(obj: KubeObject): KubeObject {
    if (this.#keepVersions) return obj;
    const kind = kindOf(obj);
    // Metadata is read defensively: the cache validates what this returns.
    const current = this.cache(kind).get(obj.metadata?.namespace ?? "", obj.metadata?.name);
    return {
      ...obj,
      metadata: {
        ...obj.metadata,
        resourceVersion: String(++this.#version),
        uid: obj.metadata?.uid ?? current?.metadata.uid ?? randomUUID(),
      },
    };
  }
}

function kindOf(obj: KubeObject): ResourceKind {
  const kind = obj.kind;
  if (kind === undefined || !Object.hasOwn(RESOURCE_KINDS, kind)) {
    throw new Error(`not a cached kind: ${String(kind)} ${obj.metadata?.name ?? ""}`);
  }
  return kind as ResourceKind;
}

/** Equal but for the stamped version fields: a relist of an unchanged object emits nothing. */
function sameContent(current: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject) =>
    JSON.stringify({
      ...o,
      metadata: { ...o.metadata, resourceVersion: undefined, uid: undefined },
    });
  return strip(current) === strip(next);
}
