import type { Pod } from "./objects/core.js";
import type { PartialObjectMetadata } from "./objects/meta.js";

export interface Owner {
  /** Lower-cased kind: deployment, statefulset, cronjob, job, replicaset, pod, … */
  readonly kind: string;
  readonly name: string;
}

/** Reads a ReplicaSet or Job from a metadata cache (or, with retry, the API). */
export type OwnerMetadataLookup = (
  kind: "ReplicaSet" | "Job",
  namespace: string,
  name: string,
) => PartialObjectMetadata | undefined;

const VALID_RS_PARENTS = new Set(["job", "statefulset", "daemonset", "deployment"]);

/**
 * The workload that owns a pod: pod → ReplicaSet → Deployment and pod → Job → CronJob, falling
 * back to the ReplicaSet or Job name when the parent is not cached, as upstream does. Never
 * fails. See README "Pod owners".
 */
export function resolvePodOwner(pod: Pod, lookup: OwnerMetadataLookup): Owner {
  const refs = pod.metadata.ownerReferences ?? [];
  const parent = refs.length === 1 ? refs[0] : undefined;
  if (parent === undefined) return { kind: "pod", name: pod.metadata.name };
  const namespace = pod.metadata.namespace ?? "";
  if (parent.kind === "Job") {
    const grand = lookup("Job", namespace, parent.name)?.metadata.ownerReferences ?? [];
    const only = grand.length === 1 ? grand[0] : undefined;
    return only
      ? { kind: only.kind.toLowerCase(), name: only.name }
      : { kind: "job", name: parent.name };
  }
  if (parent.kind === "ReplicaSet") {
    const grand = lookup("ReplicaSet", namespace, parent.name)?.metadata.ownerReferences ?? [];
    const only = grand.length === 1 ? grand[0] : undefined;
    if (only && VALID_RS_PARENTS.has(only.kind.toLowerCase())) {
      return { kind: only.kind.toLowerCase(), name: only.name };
    }
    return { kind: "replicaset", name: parent.name };
  }
  return { kind: parent.kind.toLowerCase(), name: parent.name };
}
