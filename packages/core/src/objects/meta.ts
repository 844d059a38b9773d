// Kubernetes objects as plain JSON, the way the API server and manifest files deliver them.
// Only the fields the destination service reads are typed; everything else passes through.
// They are k8s-discovery's object schemas written out (core has no dependencies to infer them
// with), and proven equal to them there (validation/object-types.test.ts).

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface ManagedFieldsEntry {
  operation?: "Apply" | "Update" | string;
  time?: string | null;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  managedFields?: ManagedFieldsEntry[] | null;
}

/** Any object with a kind and metadata; the common shape every cache stores. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** What a metadata-only cache holds (Nodes, ReplicaSets, Jobs). */
export interface PartialObjectMetadata extends KubeObject {}

export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist" | string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}
