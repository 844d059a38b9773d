import {
  type Address,
  type AddressId,
  type AddressSetEntry,
  addressIdKey,
  type Endpoints,
  newAddress,
  podPortOpaqueByServers,
} from "@destination/core";
import { frozenEntry } from "./address-snapshot.js";
import { type ConversionContext, serverLister } from "./conversion-context.js";
import { gatewayIdentity, remoteServiceFqName } from "./mirror-metadata.js";
import { type NoteReference, notePod } from "./source-references.js";
import { subsetPort, type TargetPort } from "./target-port.js";

/**
 * The addresses of a core/v1 Endpoints object for one service port, by ID key. Only ready
 * addresses count (`notReadyAddresses` never do); subsets that do not serve the target port are
 * skipped;
 * pods not in the cache are left out for now. Every pod and owner read is told to `note`, so
 * that the object is converted again when one of them arrives or changes.
 */
export function endpointsAddresses(
  endpoints: Endpoints,
  target: TargetPort,
  srcPort: number,
  ctx: ConversionContext,
  note: NoteReference,
): Map<string, AddressSetEntry> {
  const entries = new Map<string, AddressSetEntry>();
  const namespace = endpoints.metadata.namespace ?? "";
  const service = endpoints.metadata.name;
  const servers = serverLister(ctx.cluster);
  const fqName = remoteServiceFqName(endpoints);

  for (const subset of endpoints.subsets ?? []) {
    if (subset == null) continue;
    const port = subsetPort(subset, target);
    if (port === 0) continue;
    for (const ep of subset.addresses ?? []) {
      if (ep == null) continue;
      const hostname = ep.hostname ?? "";
      // Mirror and pod entries alike: the endpoint's ip and hostname, the subset's port.
      const add = (id: AddressId, fields: Partial<Address>) =>
        entries.set(
          addressIdKey(id),
          frozenEntry(id, newAddress({ ip: ep.ip, port, hostname, ...fields })),
        );
      const ref = ep.targetRef;
      if (ref == null) {
        // A service-mirror endpoint (no targetRef). Endpoints mode joins the authority without
        // brackets, as upstream.
        const name = [service, ep.ip, String(port), ...(hostname ? [hostname] : [])].join("-");
        add(
          { namespace, name, ipFamily: "" },
          {
            identity: gatewayIdentity(endpoints),
            authorityOverride: fqName === undefined ? "" : `${fqName}:${srcPort}`,
          },
        );
      } else if (ref.kind === "Pod") {
        const podNamespace = ref.namespace || namespace;
        const pod = ctx.cluster.pods.get(podNamespace, ref.name ?? "");
        notePod(note, podNamespace, ref.name ?? "", pod);
        if (pod === undefined) {
          ctx.logger.debug("endpoint's pod is not in the cache yet; added when it arrives", {
            endpoints: `${namespace}/${service}`,
            pod: `${podNamespace}/${ref.name}`,
          });
          continue;
        }
        const owner = ctx.cluster.podOwner(pod);
        add(
          { namespace: podNamespace, name: pod.metadata.name, ipFamily: "" },
          {
            pod,
            ownerKind: owner.kind,
            ownerName: owner.name,
            opaqueProtocol: podPortOpaqueByServers(
              servers(podNamespace),
              pod,
              port,
              { matchHostPort: true },
              ctx.logger,
            ),
          },
        );
      }
      // Other targetRef kinds are not served.
    }
  }
  return entries;
}
