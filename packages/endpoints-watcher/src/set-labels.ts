import type { KubeObject } from "@destination/core";
import { MIRROR_CLUSTER_NAME_LABEL, remoteServiceFqName } from "./mirror-metadata.js";

/**
 * Metric labels of a whole address set, from the Endpoints or slice it came from.
 * `service` is the Endpoints name or the slice's service-name label (possibly "").
 */
export function addressSetLabels(source: KubeObject, service: string): Record<string, string> {
  const labels: Record<string, string> = {
    service,
    namespace: source.metadata.namespace ?? "",
  };
  const cluster = source.metadata.labels?.[MIRROR_CLUSTER_NAME_LABEL];
  if (cluster !== undefined) {
    labels.target_cluster = cluster;
    const parts = remoteServiceFqName(source)?.split(".") ?? [];
    if (parts.length >= 2) {
      labels.target_service = parts[0] ?? "";
      labels.target_service_namespace = parts[1] ?? "";
    }
  }
  return labels;
}
