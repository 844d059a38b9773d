import type { KubeObject } from "@destination/core";

// Metadata the service mirror writes on the Endpoints and slices of a mirrored service (the
// addresses there have no targetRef), and the metric labels of a set read from a source object,
// mirror metadata included.

export const MIRROR_CLUSTER_NAME_LABEL = "mirror.linkerd.io/cluster-name";
const GATEWAY_IDENTITY_ANNOTATION = "mirror.linkerd.io/remote-gateway-identity";
const REMOTE_SVC_FQ_NAME_ANNOTATION = "mirror.linkerd.io/remote-svc-fq-name";

/** The remote gateway's TLS identity, "" when absent. */
export function gatewayIdentity(source: KubeObject): string {
  return source.metadata.annotations?.[GATEWAY_IDENTITY_ANNOTATION] ?? "";
}

/** The fully qualified name of the remote service, undefined when absent. */
export function remoteServiceFqName(source: KubeObject): string | undefined {
  return source.metadata.annotations?.[REMOTE_SVC_FQ_NAME_ANNOTATION];
}

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
