// What an operator reads off one WeightedAddr: the table's cells, as plain text.
import {
  ipAddressToString,
  type ProtocolHint,
  type TlsIdentity,
  type WeightedAddr,
} from "@destination/proto";

export interface EndpointFields {
  readonly ip: string;
  readonly port: string;
  readonly pod: string;
  /** `kind/name` of the workload owner, from the metric labels. */
  readonly owner: string;
  readonly identity: string;
  readonly protocolHint: string;
  readonly zone: string;
  /** Empty when the address carries no authority override. */
  readonly authorityOverride: string;
}

const NONE = "-";

/**
 * Metric labels of a pod or ExternalWorkload address that describe the workload itself; the
 * others name its owner (deployment, statefulset, ...).
 */
const NON_OWNER_LABELS = new Set([
  "pod",
  "serviceaccount",
  "control_plane_ns",
  "pod_template_hash",
  "zone",
  "zone_locality",
  "namespace",
  "external_workload",
]);

/** The server writes the owner as `<lowercased kind>: <name>`; `job` is spelled `k8s_job`. */
export function ownerFromLabels(labels: Readonly<Record<string, string>>): string {
  const ownerKey = Object.keys(labels)
    .filter((key) => !NON_OWNER_LABELS.has(key))
    .sort()[0];
  if (ownerKey !== undefined) {
    return `${ownerKey === "k8s_job" ? "job" : ownerKey}/${labels[ownerKey]}`;
  }
  // A pod without (resolvable) owner references is its own owner: the map holds only `pod`.
  return labels.pod === undefined ? NONE : `pod/${labels.pod}`;
}

export function identityText(tls: TlsIdentity | undefined): string {
  switch (tls?.strategy.case) {
    case "dnsLikeIdentity":
      return tls.strategy.value.name || NONE;
    case "uriLikeIdentity":
      return tls.strategy.value.uri || NONE;
    default:
      return NONE;
  }
}

export function protocolHintText(hint: ProtocolHint | undefined): string {
  if (hint === undefined) return NONE;
  const parts: string[] = [];
  if (hint.protocol.case !== undefined) parts.push(hint.protocol.case);
  if (hint.opaqueTransport !== undefined) {
    parts.push(`opaque-transport:${hint.opaqueTransport.inboundPort}`);
  }
  return parts.length === 0 ? NONE : parts.join(", ");
}

function zoneText(labels: Readonly<Record<string, string>>): string {
  const zone = labels.zone || NONE;
  const locality = labels.zone_locality;
  return locality === "local" || locality === "remote" ? `${zone} (${locality})` : zone;
}

function ipText(endpoint: WeightedAddr): string {
  const ip = endpoint.addr?.ip;
  if (ip === undefined) return "?";
  try {
    return ipAddressToString(ip);
  } catch {
    return "?";
  }
}

export function endpointFields(endpoint: WeightedAddr): EndpointFields {
  const labels = endpoint.metricLabels;
  const workload =
    labels.pod ??
    (labels.external_workload === undefined
      ? NONE
      : `externalworkload/${labels.external_workload}`);
  return {
    ip: ipText(endpoint),
    port: String(endpoint.addr?.port ?? "?"),
    pod: workload,
    owner: ownerFromLabels(labels),
    identity: identityText(endpoint.tlsIdentity),
    protocolHint: protocolHintText(endpoint.protocolHint),
    zone: zoneText(labels),
    authorityOverride: endpoint.authorityOverride?.authorityOverride ?? "",
  };
}
