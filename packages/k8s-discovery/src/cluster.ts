import type {
  EndpointSlice,
  Endpoints,
  ExternalWorkload,
  KubeObject,
  Node,
  Owner,
  PartialObjectMetadata,
  Pod,
  Server,
  Service,
  ServiceProfile,
} from "@destination/core";
import type { ResourceCache } from "./cache.js";
import type { ResourceKind } from "./resource-kind.js";

/** Index reads (README "Indexes"). IPs are looked up in canonical text form. */
export interface ClusterIndexes {
  /** Pods on the pod network with this IP, terminating and finished pods skipped. */
  podsByIp(ip: string): Pod[];
  /** Pods exposing `hostIP:hostPort` through a container host port, skipped alike. */
  podsByHostPort(hostIp: string, port: number): Pod[];
  /** Services whose cluster IP(s) include this IP. */
  servicesByClusterIp(ip: string): Service[];
  /**
   * Slices labelled `kubernetes.io/service-name=<service>` in that namespace; a slice tied to
   * the Service only by an ownerReference is not one of them.
   */
  endpointSlicesOfService(namespace: string, service: string): EndpointSlice[];
  /** ExternalWorkloads with this workload IP and port (not filtered). */
  externalWorkloadsByIpPort(ip: string, port: number): ExternalWorkload[];
}

/**
 * The cluster as every watcher sees it, whatever the backend: one cache per kind, indexes,
 * owner lookups and the synced signal. Caches of kinds the cluster does not serve (a missing
 * CRD, say) stay empty and are synced, so the server runs without them.
 */
export interface Cluster {
  /** `local`, or a remote cluster's name; a label of the cache-size metrics. */
  readonly name: string;
  readonly services: ResourceCache<Service>;
  readonly endpointSlices: ResourceCache<EndpointSlice>;
  readonly endpoints: ResourceCache<Endpoints>;
  readonly pods: ResourceCache<Pod>;
  readonly serviceProfiles: ResourceCache<ServiceProfile>;
  readonly servers: ResourceCache<Server>;
  readonly externalWorkloads: ResourceCache<ExternalWorkload>;
  readonly nodes: ResourceCache<Node>;
  readonly replicaSets: ResourceCache<PartialObjectMetadata>;
  readonly jobs: ResourceCache<PartialObjectMetadata>;
  readonly indexes: ClusterIndexes;
  /** The kinds this cluster serves (API discovery on a real cluster; all of them otherwise). */
  readonly servedKinds: ReadonlySet<ResourceKind>;
  /** Owner from the metadata caches only (the endpoints watcher's lookup). */
  podOwner(pod: Pod): Owner;
  /**
   * Owner with a fallback read from the API on a cache miss (the workload watcher's lookup,
   * awaited outside its queue). Backends without an API answer from the caches.
   */
  fetchPodOwner(pod: Pod): Promise<Owner>;
  /** Starts listing and watching. Handlers registered before this see the initial adds. */
  start(): Promise<void>;
  /** Resolves once every cache has synced; the server serves nothing before. */
  whenSynced(): Promise<void>;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

const CACHE_PROPERTY = {
  Service: "services",
  EndpointSlice: "endpointSlices",
  Endpoints: "endpoints",
  Pod: "pods",
  ServiceProfile: "serviceProfiles",
  Server: "servers",
  ExternalWorkload: "externalWorkloads",
  Node: "nodes",
  ReplicaSet: "replicaSets",
  Job: "jobs",
} as const satisfies Record<ResourceKind, keyof Cluster>;

/** The cache of one kind, for code that loops over kinds (metrics, tests). */
export function clusterCache(cluster: Cluster, kind: ResourceKind): ResourceCache<KubeObject> {
  return cluster[CACHE_PROPERTY[kind]] as ResourceCache<KubeObject>;
}

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
