import {
  type Address,
  type AddressId,
  type AddressSetEntry,
  addressIdKey,
  type Endpoint,
  type EndpointSlice,
  externalWorkloadPortOpaqueByServers,
  newAddress,
  podPortOpaqueByServers,
} from "@destination/core";
import { joinHostPort } from "@destination/go-compat";
import { SERVICE_NAME_LABEL } from "@destination/k8s-discovery";
import { frozenEntry } from "./address-snapshot.js";
import { type ConversionContext, podOwnerReader, serverLister } from "./conversion-context.js";
import { gatewayIdentity, remoteServiceFqName } from "./mirror-metadata.js";
import { type NoteReference, notePod } from "./source-references.js";
import { slicePort, type TargetPort } from "./target-port.js";

type SliceFamily = "IPv4" | "IPv6" | "FQDN";

function isSliceFamily(addressType: string): addressType is SliceFamily {
  return addressType === "IPv4" || addressType === "IPv6" || addressType === "FQDN";
}

/**
 * The addresses one slice contributes to a service port, by ID key. Endpoints with
 * `ready: false` are left out, a missing `ready` counts as ready (`serving` and `terminating`
 * are not read, so terminating endpoints are left out too); pods and
 * ExternalWorkloads not in the cache are left out for now. Every pod, owner and ExternalWorkload
 * the conversion reads is told to `note`, found or not, so that the slice is converted again
 * when one of them arrives or changes (see "Ordering" in the README).
 *
 * FQDN slices are converted like the others: their "IPs" are DNS names that the
 * translator cannot encode and drops. They are kept here rather than dropped because they take
 * part in zone-hint filtering and in the `endpoints_pods` and `endpoints_exists` metrics.
 *
 * `dropped` hears why each endpoint left out was left out (`null`: the whole slice), for
 * `explainSliceAddresses`; serving passes none.
 */
export function sliceAddresses(
  slice: EndpointSlice,
  service: string,
  target: TargetPort,
  srcPort: number,
  ctx: ConversionContext,
  note: NoteReference,
  dropped?: (endpoint: Endpoint | null, reason: NotServedReason) => void,
): Map<string, AddressSetEntry> {
  const entries = new Map<string, AddressSetEntry>();
  const sliceName = `${slice.metadata.namespace}/${slice.metadata.name}`;
  const family = slice.addressType;
  if (!isSliceFamily(family)) {
    ctx.logger.warn("EndpointSlice with an unsupported addressType skipped", {
      slice: sliceName,
      addressType: family,
    });
    dropped?.(null, "unsupported address type");
    return entries;
  }
  const port = slicePort(slice, target);
  if (port === 0) {
    dropped?.(null, "no matching port");
    return entries;
  }
  if (family === "FQDN") {
    ctx.logger.debug("FQDN EndpointSlice: its names are carried but translators drop them", {
      slice: sliceName,
    });
  }
  const namespace = slice.metadata.namespace ?? "";
  const servers = serverLister(ctx.cluster);
  const podOwner = podOwnerReader(ctx.cluster);
  const put = (id: AddressId, entry: Parameters<typeof newAddress>[0]) => {
    entries.set(addressIdKey(id), frozenEntry(id, newAddress(entry)));
  };

  // Index loops rather than for-of: a first Get runs this before the JIT has optimised it,
  // and there an array iterator allocates its own object and one result per element.
  const endpoints = slice.endpoints ?? [];
  for (let e = 0; e < endpoints.length; e++) {
    const ep = endpoints[e];
    if (ep == null) continue;
    if (ep.conditions?.ready === false) {
      dropped?.(ep, "not ready");
      continue;
    }
    const ref = ep.targetRef;
    const forZones = hintedZones(ep);
    const hostname = ep.hostname ?? null;
    const ips = ep.addresses ?? [];

    if (ref == null) {
      // A service-mirror endpoint (no targetRef): one ID per address, named
      // <service>-<ip>-<port>[-<hostname>].
      const fqName = remoteServiceFqName(slice);
      for (const ip of ips) {
        const name = [service, ip, String(port), ...(hostname ? [hostname] : [])].join("-");
        put(
          { namespace, name, ipFamily: "" },
          {
            ip,
            port,
            hostname,
            forZones,
            identity: gatewayIdentity(slice),
            authorityOverride: fqName === undefined ? "" : joinHostPort(fqName, srcPort),
          },
        );
      }
    } else if (ref.kind === "Pod") {
      // Manifests may omit the reference's namespace; the slice's is the only sensible one.
      const podNamespace = ref.namespace || namespace;
      const pod = ctx.cluster.pods.get(podNamespace, ref.name ?? "");
      notePod(note, podNamespace, ref.name ?? "", pod);
      if (pod === undefined) {
        ctx.logger.debug("endpoint's pod is not in the cache yet; added when it arrives", {
          slice: sliceName,
          pod: `${podNamespace}/${ref.name}`,
        });
        dropped?.(ep, "pod missing");
        continue;
      }
      const owner = podOwner(pod);
      const opaqueProtocol = podPortOpaqueByServers(
        servers(podNamespace),
        pod,
        port,
        { matchHostPort: true },
        ctx.logger,
      );
      // One ID per pod and family; several addresses of one endpoint collapse (last wins).
      const id: AddressId = { namespace: podNamespace, name: pod.metadata.name, ipFamily: family };
      const key = addressIdKey(id);
      for (let i = 0; i < ips.length; i++) {
        const ip = ips[i] as string;
        // The hot case, built whole: `newAddress` merges by spreading, and with its field order
        // so that every address has one shape.
        const address: Address = {
          pod,
          externalWorkload: null,
          ownerKind: owner.kind,
          ownerName: owner.name,
          identity: "",
          authorityOverride: "",
          zone: ep.zone ?? null,
          forZones,
          opaqueProtocol,
          hostname,
          ip,
          port,
        };
        entries.set(key, frozenEntry(id, address));
      }
    } else if (ref.kind === "ExternalWorkload") {
      const ew = ctx.cluster.externalWorkloads.get(namespace, ref.name ?? "");
      note("ExternalWorkload", namespace, ref.name ?? "");
      if (ew === undefined) {
        ctx.logger.debug(
          "endpoint's ExternalWorkload is not in the cache yet; added when it arrives",
          {
            slice: sliceName,
            externalWorkload: `${namespace}/${ref.name}`,
          },
        );
        dropped?.(ep, "externalworkload missing");
        continue;
      }
      let opaqueProtocol: boolean;
      try {
        opaqueProtocol = externalWorkloadPortOpaqueByServers(servers(namespace), ew, port);
      } catch (err) {
        // Unlike a pod's, this address is dropped when a Server cannot be evaluated, as upstream.
        ctx.logger.warn("ExternalWorkload address dropped: invalid Server selector", {
          slice: sliceName,
          externalWorkload: `${namespace}/${ew.metadata.name}`,
          error: String(err),
        });
        dropped?.(ep, "invalid Server selector");
        continue;
      }
      const owners = ew.metadata.ownerReferences ?? [];
      const owner = owners.length === 1 ? owners[0] : undefined;
      // An ExternalWorkload is one ID, whatever the family; its owner's kind is lower-cased.
      const id: AddressId = { namespace, name: ew.metadata.name, ipFamily: "" };
      for (const ip of ips) {
        put(id, {
          ip,
          port,
          externalWorkload: ew,
          ownerKind: owner?.kind.toLowerCase() ?? "",
          ownerName: owner?.name ?? "",
          opaqueProtocol,
          hostname,
          zone: ep.zone ?? null,
          forZones,
        });
      }
    } else {
      dropped?.(ep, "unsupported target kind");
    }
  }
  return entries;
}

/** Most endpoints have no hints: they share one empty list rather than allocate two each. */
const NO_ZONES: readonly { name: string }[] = Object.freeze([]);

function hintedZones(ep: Endpoint): readonly { name: string }[] {
  const zones = ep.hints?.forZones;
  if (zones == null || zones.length === 0) return NO_ZONES;
  return zones.filter((z) => z != null).map((z) => ({ name: z.name }));
}

/** Why an address a slice lists is not served. */
export type NotServedReason =
  | "unsupported address type"
  | "no matching port"
  | "not ready"
  | "pod missing"
  | "externalworkload missing"
  | "invalid Server selector"
  | "unsupported target kind"
  | "another address of the endpoint is served"
  | "IPv6 disabled"
  | "IPv4 of a dual-stack workload";

/**
 * The Service a slice belongs to, or undefined for a slice that names none. The label
 * wins when present, even when empty if the slice has ownerReferences (upstream parity);
 * otherwise the first Service ownerReference with a name.
 */
export function sliceServiceName(slice: EndpointSlice): string | undefined {
  const refs = slice.metadata.ownerReferences ?? [];
  const label = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  if (refs.length === 0 && !label) return undefined;
  if (label !== undefined) return label;
  return refs.find((r) => r?.kind === "Service" && r.name)?.name;
}
