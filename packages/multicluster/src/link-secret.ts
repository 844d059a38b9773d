import type { Secret } from "@destination/core";

export const LINK_SECRET_TYPE = "mirror.linkerd.io/remote-kubeconfig";
export const MULTICLUSTER_CLUSTER_NAME_LABEL = "multicluster.linkerd.io/cluster-name";
export const CLUSTER_DOMAIN_ANNOTATION = "multicluster.linkerd.io/cluster-domain";
export const TRUST_DOMAIN_ANNOTATION = "multicluster.linkerd.io/trust-domain";

/** What a link Secret says about its remote cluster (see README "Link Secrets"). */
export interface ClusterLink {
  readonly name: string;
  readonly kubeconfigYaml: string;
  readonly trustDomain: string;
  readonly clusterDomain: string;
}

/**
 * Reads a link Secret: `ignored` for Secrets that are not links at all (wrong type or no
 * cluster-name label; not worth more than a debug line), `invalid` with upstream's reason for
 * links missing the kubeconfig or a domain annotation.
 */
export function readLinkSecret(
  secret: Secret,
):
  | { readonly kind: "link"; readonly link: ClusterLink }
  | { readonly kind: "ignored" }
  | { readonly kind: "invalid"; readonly name: string; readonly reason: string } {
  const name = secret.metadata.labels?.[MULTICLUSTER_CLUSTER_NAME_LABEL];
  if (secret.type !== LINK_SECRET_TYPE || name === undefined) return { kind: "ignored" };
  const encoded = secret.data?.kubeconfig;
  if (encoded === undefined) return { kind: "invalid", name, reason: "missing kubeconfig file" };
  const annotations = secret.metadata.annotations ?? {};
  for (const key of [CLUSTER_DOMAIN_ANNOTATION, TRUST_DOMAIN_ANNOTATION]) {
    if (annotations[key] === undefined) {
      return { kind: "invalid", name, reason: `missing "${key}" annotation` };
    }
  }
  return {
    kind: "link",
    link: {
      name,
      kubeconfigYaml: Buffer.from(encoded, "base64").toString("utf8"),
      trustDomain: annotations[TRUST_DOMAIN_ANNOTATION] ?? "",
      clusterDomain: annotations[CLUSTER_DOMAIN_ANNOTATION] ?? "",
    },
  };
}
