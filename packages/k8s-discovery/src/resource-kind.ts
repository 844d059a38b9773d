import type { KubeObject, PartialObjectMetadata } from "@destination/core";

/** Every resource the destination service caches, with what it takes to list and watch it. */
export interface ResourceKindInfo {
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  /** Metadata-only caches keep `PartialObjectMetadata`: owners and labels are all that is read. */
  readonly metadataOnly: boolean;
  /** The `<name>_cache_size` gauge name stem, as upstream names it. */
  readonly metricName: string;
}

export const RESOURCE_KINDS = {
  Service: {
    kind: "Service",
    group: "",
    version: "v1",
    plural: "services",
    metadataOnly: false,
    metricName: "service",
  },
  EndpointSlice: {
    kind: "EndpointSlice",
    group: "discovery.k8s.io",
    version: "v1",
    plural: "endpointslices",
    metadataOnly: false,
    metricName: "endpointslices",
  },
  Endpoints: {
    kind: "Endpoints",
    group: "",
    version: "v1",
    plural: "endpoints",
    metadataOnly: false,
    metricName: "endpoints",
  },
  Pod: {
    kind: "Pod",
    group: "",
    version: "v1",
    plural: "pods",
    metadataOnly: false,
    metricName: "pod",
  },
  ServiceProfile: {
    kind: "ServiceProfile",
    group: "linkerd.io",
    version: "v1alpha2",
    plural: "serviceprofiles",
    metadataOnly: false,
    metricName: "serviceprofile",
  },
  Server: {
    kind: "Server",
    group: "policy.linkerd.io",
    version: "v1beta3",
    plural: "servers",
    metadataOnly: false,
    metricName: "server",
  },
  ExternalWorkload: {
    kind: "ExternalWorkload",
    group: "workload.linkerd.io",
    version: "v1beta1",
    plural: "externalworkloads",
    metadataOnly: false,
    metricName: "externalworkload",
  },
  Node: {
    kind: "Node",
    group: "",
    version: "v1",
    plural: "nodes",
    metadataOnly: true,
    metricName: "node",
  },
  ReplicaSet: {
    kind: "ReplicaSet",
    group: "apps",
    version: "v1",
    plural: "replicasets",
    metadataOnly: true,
    metricName: "replicaset",
  },
  Job: {
    kind: "Job",
    group: "batch",
    version: "v1",
    plural: "jobs",
    metadataOnly: true,
    metricName: "job",
  },
} as const satisfies Record<string, ResourceKindInfo>;

export type ResourceKind = keyof typeof RESOURCE_KINDS;

/** `apiVersion` text of a kind: `v1` for the core group, else `group/version`. */
export function apiVersionOf(info: Pick<ResourceKindInfo, "group" | "version">): string {
  return info.group === "" ? info.version : `${info.group}/${info.version}`;
}

/**
 * What a metadata-only cache keeps of an object: its metadata without
 * `managedFields`, typed as the resource it describes rather than as `PartialObjectMetadata`,
 * whether the server sent metadata or a full object.
 */
export function toObjectMetadata(
  obj: KubeObject,
  info: Pick<ResourceKindInfo, "kind" | "group" | "version">,
): PartialObjectMetadata {
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { apiVersion: apiVersionOf(info), kind: info.kind, metadata };
}
