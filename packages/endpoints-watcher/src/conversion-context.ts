import type { Logger, Server } from "@destination/core";
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
