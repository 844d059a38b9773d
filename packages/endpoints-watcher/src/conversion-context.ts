import type { Logger, Owner, Pod, Server } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";

/** What turning an Endpoints object or a slice into addresses reads. */
export interface ConversionContext {
  readonly cluster: Cluster;
  readonly logger: Logger;
}

/** The Servers of a namespace, listed once per conversion rather than once per address. */
export function serverLister(cluster: Cluster): (namespace: string) => readonly Server[] {
  const byNamespace = new Map<string, readonly Server[]>();
  return (namespace) => {
    let servers = byNamespace.get(namespace);
    if (servers === undefined) {
      servers = cluster.servers.list(namespace);
      byNamespace.set(namespace, servers);
    }
    return servers;
  };
}

/**
 * The owner of each pod, resolved once per parent within one conversion: the pods of a slice
 * mostly share one ReplicaSet, and the owner depends only on the pod's one parent reference
 * and namespace.
 */
export function podOwnerReader(cluster: Cluster): (pod: Pod) => Owner {
  let last: { kind: string; name: string; namespace: string | undefined; owner: Owner } | undefined;
  return (pod) => {
    const refs = pod.metadata.ownerReferences ?? [];
    const parent = refs.length === 1 ? refs[0] : undefined;
    if (parent === undefined) return cluster.podOwner(pod);
    const namespace = pod.metadata.namespace;
    if (
      last !== undefined &&
      last.name === parent.name &&
      last.kind === parent.kind &&
      last.namespace === namespace
    ) {
      return last.owner;
    }
    const owner = cluster.podOwner(pod);
    last = { kind: parent.kind, name: parent.name, namespace, owner };
    return owner;
  };
}
