import {
  type Address,
  externalWorkloadPortOpaqueByServers,
  type Logger,
  podPortOpaqueByServers,
  type Server,
  serverPortMatchesExternalWorkload,
  serverPortMatchesPod,
  serverSelectsExternalWorkload,
  serverSelectsPod,
} from "@destination/core";

// Server-driven opacity of addresses in endpoint sets (see README "Opacity from Servers").

/**
 * An address's opacity from every Server of its namespace, starting from false; host ports
 * count as they do when an address is built. Undefined when it cannot be computed (a
 * service-ref address, or an invalid selector next to an ExternalWorkload).
 */
export function opacityFromServers(
  address: Address,
  servers: readonly Server[],
  logger: Logger,
): boolean | undefined {
  if (address.pod !== null) {
    return podPortOpaqueByServers(
      servers,
      address.pod,
      address.port,
      { matchHostPort: true },
      logger,
    );
  }
  if (address.externalWorkload !== null) {
    try {
      return externalWorkloadPortOpaqueByServers(servers, address.externalWorkload, address.port);
    } catch (err) {
      logger.warn("cannot recompute ExternalWorkload opacity; keeping it", {
        externalWorkload: address.externalWorkload.metadata.name,
        error: String(err),
      });
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether a Server event concerns this address: same namespace, selector match, and the
 * port by number or by a declared port name (host ports not considered here).
 */
export function serverSelectsAddress(server: Server, address: Address, logger: Logger): boolean {
  try {
    const pod = address.pod;
    if (pod !== null) {
      return (
        pod.metadata.namespace === server.metadata.namespace &&
        serverSelectsPod(server, pod) &&
        serverPortMatchesPod(server, pod, address.port, { matchHostPort: false })
      );
    }
    const ew = address.externalWorkload;
    if (ew !== null) {
      return (
        ew.metadata.namespace === server.metadata.namespace &&
        serverSelectsExternalWorkload(server, ew) &&
        serverPortMatchesExternalWorkload(server, ew, address.port)
      );
    }
  } catch (err) {
    logger.warn("Server with an invalid selector skipped", {
      server: `${server.metadata.namespace}/${server.metadata.name}`,
      error: String(err),
    });
  }
  return false;
}
