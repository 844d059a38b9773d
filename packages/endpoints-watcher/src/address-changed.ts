import type { Address } from "@destination/core";

/**
 * Whether an address kept under the same ID must be announced again. Upstream compares
 * identity, zone hints, Server opacity and the pod's resourceVersion; the ip and port are
 * compared too (fix), so a target-port renumbering or an IP change reaches the proxy, and so is
 * the owner (fix), so a ReplicaSet cached after its pods corrects the `deployment` label.
 * Deliberately not compared (upstream parity): zone, authority override, hostname and the
 * ExternalWorkload object.
 */
export function addressChanged(previous: Address, next: Address): boolean {
  if (previous.identity !== next.identity) return true;
  if (previous.ownerKind !== next.ownerKind || previous.ownerName !== next.ownerName) return true;
  if (!sameZoneNames(previous, next)) return true;
  if (previous.opaqueProtocol !== next.opaqueProtocol) return true;
  if (
    previous.pod !== null &&
    next.pod !== null &&
    previous.pod.metadata.resourceVersion !== next.pod.metadata.resourceVersion
  ) {
    return true;
  }
  return previous.ip !== next.ip || previous.port !== next.port;
}

/** Zone-hint names compared as multisets. */
function sameZoneNames(a: Address, b: Address): boolean {
  if (a.forZones.length !== b.forZones.length) return false;
  const left = a.forZones.map((z) => z.name).sort();
  const right = b.forZones.map((z) => z.name).sort();
  return left.every((name, i) => name === right[i]);
}
