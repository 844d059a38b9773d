import type { Address, ExternalWorkload, Pod } from "@destination/core";

/** The pod label naming the control plane that injected the pod's proxy. */
export const CONTROL_PLANE_NS_LABEL = "linkerd.io/control-plane-ns";
const POD_TEMPLATE_HASH_LABEL = "pod-template-hash";

/** `spec.serviceAccountName`, or `default` as the API server would fill it in. */
export function serviceAccountOf(pod: Pod): string {
  return pod.spec?.serviceAccountName || "default";
}

/** The pod's control-plane namespace label, or "" when it is not meshed. */
export function controlPlaneNamespaceOf(pod: Pod): string {
  return pod.metadata.labels?.[CONTROL_PLANE_NS_LABEL] ?? "";
}

/**
 * Owner kinds arrive lower-cased from owner resolution; `job` is renamed because Prometheus
 * reserves the `job` label for the scrape job.
 */
function ownerLabelKey(kind: string): string {
  return kind === "job" ? "k8s_job" : kind;
}

/**
 * Per-address labels of a pod-backed endpoint (README "Pod metric labels"), up to and including
 * `zone`.
 * Callers append `zone_locality` (Get) or `namespace` (endpoint profiles).
 */
export function podMetricLabels(address: Address, pod: Pod): Record<string, string> {
  const labels: Record<string, string> = { pod: pod.metadata.name };
  labels[ownerLabelKey(address.ownerKind)] = address.ownerName;
  labels.serviceaccount = serviceAccountOf(pod);
  const controlPlaneNs = controlPlaneNamespaceOf(pod);
  if (controlPlaneNs !== "") labels.control_plane_ns = controlPlaneNs;
  const templateHash = pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? "";
  if (templateHash !== "") labels.pod_template_hash = templateHash;
  labels.zone = address.zone ?? "";
  return labels;
}

/**
 * Per-address labels of an ExternalWorkload endpoint (README "ExternalWorkload endpoints"), up to
 * and including `zone`. The owner kind is used exactly as the watcher gives it: lower-cased on
 * Get, as written in the owner reference on endpoint profiles, as upstream does.
 */
export function externalWorkloadMetricLabels(
  address: Address,
  ew: ExternalWorkload,
): Record<string, string> {
  const labels: Record<string, string> = { external_workload: ew.metadata.name };
  if (address.ownerKind !== "" && address.ownerName !== "") {
    labels[address.ownerKind] = address.ownerName;
  }
  labels.zone = address.zone ?? "";
  return labels;
}
