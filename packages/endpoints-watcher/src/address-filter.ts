import type { AddressSetEntry } from "@destination/core";

/**
 * What a subscriber's view of a service port depends on: listeners with equal keys share one
 * filtered listener group, its filter and its diff state.
 */
export interface FilterKey {
  /** An instance (StatefulSet pod) name from the authority, or "". */
  readonly hostname: string;
  /** The node of the subscribing proxy, from its context token, or "". */
  readonly nodeName: string;
  /** True for local discovery; remote discovery skips traffic-policy and zone filtering. */
  readonly enableEndpointFiltering: boolean;
}

/** Structural key of a FilterKey, for use in Maps. */
export function filterKeyString(key: FilterKey): string {
  return JSON.stringify([key.hostname, key.nodeName, key.enableEndpointFiltering]);
}

/** Everything a listener group's view depends on besides the addresses themselves. */
export interface AddressFilter {
  readonly key: FilterKey;
  /** The subscribing node's `topology.kubernetes.io/zone`, "" while the Node is not cached. */
  readonly nodeZone: string;
  /** The Service's `internalTrafficPolicy` is `Local`. */
  readonly localTrafficPolicy: boolean;
  readonly enableIPv6: boolean;
}

type Entries = ReadonlyMap<string, AddressSetEntry>;

/**
 * Hostname, then local traffic policy or zone hints (only with endpoint filtering), then address
 * family (see README "Filtering").
 */
export function filterAddresses(
  entries: Entries,
  filter: AddressFilter,
): ReadonlyMap<string, AddressSetEntry> {
  const { key } = filter;
  let candidates: Entries = entries;
  if (key.hostname !== "") {
    candidates = keep(candidates, (e) => e.address.hostname === key.hostname);
  }
  if (key.enableEndpointFiltering) {
    candidates = filter.localTrafficPolicy
      ? keep(candidates, (e) => (e.address.pod?.spec?.nodeName ?? "") === key.nodeName)
      : byZoneHints(candidates, filter.nodeZone);
  }
  return byAddressFamily(candidates, filter.enableIPv6);
}

function keep(entries: Entries, test: (e: AddressSetEntry) => boolean): Entries {
  const kept = new Map<string, AddressSetEntry>();
  for (const [k, e] of entries) if (test(e)) kept.set(k, e);
  return kept;
}

/**
 * Topology-aware routing as kube-proxy does it: hints only count when every candidate has
 * some, and hints that leave nothing are ignored.
 */
function byZoneHints(entries: Entries, zone: string): Entries {
  for (const e of entries.values()) if (e.address.forZones.length === 0) return entries;
  const inZone = keep(entries, (e) => e.address.forZones.some((z) => z.name === zone));
  return inZone.size === 0 ? entries : inZone;
}

/**
 * Without IPv6 its IDs go; with it, a dual-stack workload is served over IPv6 only.
 * Only twins present in this (already zone-filtered) set count. When nothing goes, the set
 * itself is returned rather than a copy.
 */
function byAddressFamily(entries: Entries, enableIPv6: boolean): Entries {
  const dropped = familyDrops(entries, enableIPv6);
  let anyDropped = false;
  for (const e of entries.values()) {
    if (dropped(e) !== null) {
      anyDropped = true;
      break;
    }
  }
  return anyDropped ? keep(entries, (e) => dropped(e) === null) : entries;
}

/** Why the address family rule drops an entry of `entries`, or null when it keeps it. */
export function familyDrops(
  entries: Entries,
  enableIPv6: boolean,
): (e: AddressSetEntry) => "IPv6 disabled" | "IPv4 of a dual-stack workload" | null {
  const workload = (e: AddressSetEntry) => `${e.id.namespace}/${e.id.name}`;
  let withIPv6: Set<string> | undefined;
  if (enableIPv6) {
    for (const e of entries.values()) {
      if (e.id.ipFamily !== "IPv6") continue;
      withIPv6 ??= new Set();
      withIPv6.add(workload(e));
    }
  }
  return (e) => {
    if (e.id.ipFamily === "IPv6") return enableIPv6 ? null : "IPv6 disabled";
    return e.id.ipFamily === "IPv4" && withIPv6 !== undefined && withIPv6.has(workload(e))
      ? "IPv4 of a dual-stack workload"
      : null;
  };
}
