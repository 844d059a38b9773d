import type { KubeObject } from "@destination/core";

// Metadata the service mirror writes on the Endpoints and slices of a mirrored service; the
// addresses there have no targetRef.

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
