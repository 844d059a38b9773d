import {
  type AddressSetEntry,
  type Endpoint,
  type EndpointSlice,
  type Service,
  silentLogger,
} from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";
import { familyDrops } from "./address-filter.js";
import type { NotServedReason } from "./slice-addresses.js";
import { sliceAddresses } from "./slice-addresses.js";
import { serviceTargetPort, slicePort } from "./target-port.js";

/** Whether one address of a slice's endpoint is served, and if not the first reason why. */
export type AddressVerdict = (endpoint: Endpoint, address: string) => NotServedReason | null;

/** The verdicts for each slice, in the order given. */
export interface SliceExplanation {
  readonly slice: EndpointSlice;
  /** For each Service port the slice serves, the port its endpoints listen on. */
  readonly servesPorts: readonly { readonly servicePort: number; readonly port: number }[];
  readonly verdict: AddressVerdict;
}

/**
 * Why each address of a Service's slices is or is not served, by the watcher's own rules: the
 * slices are converted as a subscription converts them (for the first Service port a slice
 * serves: what leaves an endpoint out does not depend on the port), with a recorder for what
 * the conversion leaves out, then the address family rule runs over them all, as it does for
 * every listener. Zone hints and traffic policy are per subscriber and not applied. Without the
 * Service, a slice with ports serves any port number asked for: its first port stands in.
 */
export function explainSliceAddresses(
  cluster: Cluster,
  service: Service | undefined,
  slices: readonly EndpointSlice[],
  options: { readonly enableIPv6: boolean },
): SliceExplanation[] {
  const ctx = { cluster, logger: silentLogger };
  const converted = slices.map((slice) => {
    const servesPorts = servedPortPairs(service, slice);
    const srcPort = servesPorts[0]?.servicePort ?? slice.ports?.[0]?.port ?? 0;
    const target = service === undefined ? srcPort : serviceTargetPort(service, srcPort);
    let sliceReason: NotServedReason | null = null;
    const dropped = new Map<Endpoint, NotServedReason>();
    const entries = sliceAddresses(
      slice,
      service?.metadata.name ?? slice.metadata.labels?.["kubernetes.io/service-name"] ?? "",
      target,
      srcPort,
      ctx,
      () => {},
      (endpoint, reason) => {
        if (endpoint === null) sliceReason = reason;
        else dropped.set(endpoint, reason);
      },
    );
    // A Service whose ports none of the slice's match: nothing converts.
    if (service !== undefined && servesPorts.length === 0) sliceReason = "no matching port";
    return { slice, servesPorts, entries, dropped, sliceReason };
  });

  const all = new Map<string, AddressSetEntry>();
  for (const { entries } of converted) for (const [k, e] of entries) all.set(k, e);
  const family = familyDrops(all, options.enableIPv6);

  return converted.map(({ slice, servesPorts, entries, dropped, sliceReason }) => {
    // The address each kept entry serves (an endpoint's addresses collapse to one ID).
    const kept = new Map<string, AddressSetEntry>();
    for (const e of entries.values()) kept.set(e.address.ip, e);
    return {
      slice,
      servesPorts,
      verdict: (endpoint, address) => {
        if (sliceReason !== null) return sliceReason;
        const reason = dropped.get(endpoint);
        if (reason !== undefined) return reason;
        const entry = kept.get(address);
        if (entry === undefined) return "another address of the endpoint is served";
        return family(entry);
      },
    };
  });
}

/**
 * The ports a slice serves. Without the Service, the watcher serves a requested port number
 * as it is, so any slice that lists ports serves; it is reported with no port pairs.
 */
function servedPortPairs(
  service: Service | undefined,
  slice: EndpointSlice,
): { servicePort: number; port: number }[] {
  const pairs: { servicePort: number; port: number }[] = [];
  for (const p of service?.spec?.ports ?? []) {
    const port = slicePort(slice, serviceTargetPort(service, p.port));
    if (port !== 0) pairs.push({ servicePort: p.port, port });
  }
  return pairs;
}
