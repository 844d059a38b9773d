// Parts of the messages the e2e tests expect, written once: what the server derives from a
// service account, and the retry budget every profile carries by default.

/** The identity of a meshed pod's service account under the default trust domain. */
export const identityOf = (serviceAccount: string, namespace: string) =>
  `${serviceAccount}.${namespace}.serviceaccount.identity.linkerd.cluster.local`;

/** A `tlsIdentity` as Get and endpoint profiles send it for a meshed pod. */
export const tlsIdentityOf = (serviceAccount: string, namespace: string) => ({
  dnsLikeIdentity: { name: identityOf(serviceAccount, namespace) },
  serverName: { name: identityOf(serviceAccount, namespace) },
});

/** The default retry budget; float32 on the wire, so 0.2 comes back as its nearest float32. */
export const DEFAULT_RETRY_BUDGET = {
  retryRatio: Math.fround(0.2),
  minRetriesPerSecond: 10,
  ttl: "10s",
};
