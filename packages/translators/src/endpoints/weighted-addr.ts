// The one place that decides what a proxy learns about an endpoint: metric labels, identity,
// protocol hints, skipped inbound ports. Get (endpoint-translator.ts) and endpoint profiles
// (../profiles/endpoint-profile-translator.ts) both build their `WeightedAddr` here.
import {
  type Address,
  type ExternalWorkload,
  type Logger,
  type Pod,
  parsePortRange,
} from "@destination/core";
import {
  AuthorityOverrideSchema,
  create,
  type TcpAddress,
  TlsIdentity_DnsLikeIdentitySchema,
  TlsIdentity_UriLikeIdentitySchema,
  TlsIdentitySchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";
import type { EndpointTranslatorConfig } from "../contracts.js";
import { isProxyMetaPort, proxyInboundPort } from "./proxy-env.js";
import { sharedPodIdentity, sharedProtocolHint } from "./shared-messages.js";

/** Every endpoint weighs the same (before the experimental zone weighting). */
export const DEFAULT_WEIGHT = 10_000;

/** Where an ExternalWorkload proxy listens when `spec.ports` names no `linkerd-proxy` port. */
const DEFAULT_EXTERNAL_WORKLOAD_INBOUND_PORT = 4143;
const EXTERNAL_WORKLOAD_PROXY_PORT_NAME = "linkerd-proxy";

/**
 * A pod-backed endpoint (README "Pod endpoints", labels up to `zone`). `opaquePorts` is the pod's
 * annotation set or the defaults; a Server marking the address opaque counts too.
 * @throws TranslationError when a meshed pod's proxy env cannot be read (the address is dropped)
 */
export function podWeightedAddr(
  addr: TcpAddress,
  address: Address,
  pod: Pod,
  opaquePorts: ReadonlySet<number>,
  config: EndpointTranslatorConfig,
  logger: Logger,
): WeightedAddr {
  // Messages of the per-address hot path are written as the plain objects `create` would
  // return (proto3: no prototype, every non-message field set): `create` showed in profiles of
  // cold Gets, and the types check that nothing is missing.
  const wa: WeightedAddr = {
    $typeName: "io.linkerd.proxy.destination.WeightedAddr",
    addr,
    weight: DEFAULT_WEIGHT,
    metricLabels: podMetricLabels(address, pod),
  };
  const port = address.port;
  const controlPlaneNs = controlPlaneNamespaceOf(pod);
  const skipped = isSkippedInboundPort(pod, port, logger);

  if (controlPlaneNs !== "" && !skipped) {
    wa.http2 = config.meshedHttp2ClientParams;
    const isOpaque = opaquePorts.has(port) || address.opaqueProtocol;
    const transport =
      !isProxyMetaPort(pod, port) && (config.forceOpaqueTransport || isOpaque)
        ? proxyInboundPort(pod)
        : undefined;
    // Present even when it names no protocol: a proxy reads an empty hint as "meshed".
    wa.protocolHint = sharedProtocolHint(
      isOpaque ? "opaque" : config.enableH2Upgrade ? "h2" : "none",
      transport,
    );
  }

  // Only a proxy of this control plane holds a certificate from this trust domain.
  if (
    config.identityTrustDomain !== "" &&
    controlPlaneNs === config.controllerNamespace &&
    !skipped
  ) {
    wa.tlsIdentity = sharedPodIdentity(
      config.identityTrustDomain,
      controlPlaneNs,
      pod.metadata.namespace || "default",
      serviceAccountOf(pod),
    );
  }
  return wa;
}

/**
 * An ExternalWorkload-backed endpoint (README "ExternalWorkload endpoints", labels up to `zone`).
 * It is always treated as meshed, with a SPIFFE identity; `enable-h2-upgrade` does not apply.
 */
export function externalWorkloadWeightedAddr(
  addr: TcpAddress,
  address: Address,
  ew: ExternalWorkload,
  opaquePorts: ReadonlySet<number>,
  config: EndpointTranslatorConfig,
): WeightedAddr {
  const isOpaque = opaquePorts.has(address.port) || address.opaqueProtocol;
  let transport: number | undefined;
  if (config.forceOpaqueTransport || isOpaque) {
    const proxyPort = (ew.spec?.ports ?? []).find(
      (p) => p.name === EXTERNAL_WORKLOAD_PROXY_PORT_NAME,
    );
    transport = proxyPort?.port ?? DEFAULT_EXTERNAL_WORKLOAD_INBOUND_PORT;
  }
  const hint = sharedProtocolHint(isOpaque ? "opaque" : "h2", transport);
  const meshTls = ew.spec?.meshTLS;
  return create(WeightedAddrSchema, {
    addr,
    weight: DEFAULT_WEIGHT,
    metricLabels: externalWorkloadMetricLabels(address, ew),
    http2: config.meshedHttp2ClientParams,
    protocolHint: hint,
    tlsIdentity: create(TlsIdentitySchema, {
      strategy: {
        case: "uriLikeIdentity",
        value: create(TlsIdentity_UriLikeIdentitySchema, { uri: meshTls?.identity ?? "" }),
      },
      serverName: create(TlsIdentity_DnsLikeIdentitySchema, { name: meshTls?.serverName ?? "" }),
    }),
  });
}

/**
 * A Get endpoint with neither pod nor workload: a mirrored gateway or a slice endpoint without
 * `targetRef`. A gateway identity makes it meshed; the gateway terminates TLS for many names, so
 * no `server_name` is sent. See README "Endpoints without a workload".
 */
export function podlessWeightedAddr(
  addr: TcpAddress,
  address: Address,
  config: EndpointTranslatorConfig,
): WeightedAddr {
  const wa = create(WeightedAddrSchema, { addr, weight: DEFAULT_WEIGHT });
  if (address.authorityOverride !== "") {
    wa.authorityOverride = create(AuthorityOverrideSchema, {
      authorityOverride: address.authorityOverride,
    });
  }
  if (address.identity !== "") {
    wa.tlsIdentity = create(TlsIdentitySchema, {
      strategy: {
        case: "dnsLikeIdentity",
        value: create(TlsIdentity_DnsLikeIdentitySchema, { name: address.identity }),
      },
    });
    if (config.enableH2Upgrade) wa.protocolHint = sharedProtocolHint("h2", undefined);
    wa.http2 = config.meshedHttp2ClientParams;
  }
  return wa;
}

/** An endpoint profile for an IP with no workload behind it: address and weight only. */
export function bareWeightedAddr(addr: TcpAddress): WeightedAddr {
  return create(WeightedAddrSchema, { addr, weight: DEFAULT_WEIGHT });
}

// Metric labels: README "Pod metric labels" and "ExternalWorkload endpoints".

/** The pod label naming the control plane that injected the pod's proxy. */
const CONTROL_PLANE_NS_LABEL = "linkerd.io/control-plane-ns";
const POD_TEMPLATE_HASH_LABEL = "pod-template-hash";

/** `spec.serviceAccountName`, or `default` as the API server would fill it in. */
function serviceAccountOf(pod: Pod): string {
  return pod.spec?.serviceAccountName || "default";
}

/** The pod's control-plane namespace label, or "" when it is not meshed. */
function controlPlaneNamespaceOf(pod: Pod): string {
  return pod.metadata.labels?.[CONTROL_PLANE_NS_LABEL] ?? "";
}

/**
 * Owner kinds arrive lower-cased from owner resolution; `job` is renamed because Prometheus
 * reserves the `job` label for the scrape job.
 */
function ownerLabelKey(kind: string): string {
  return kind === "job" ? "k8s_job" : kind;
}

/**
 * Per-address labels of a pod-backed endpoint (README "Pod metric labels"), up to and including
 * `zone`.
 * Callers append `zone_locality` (Get) or `namespace` (endpoint profiles).
 */
function podMetricLabels(address: Address, pod: Pod): Record<string, string> {
  const labels: Record<string, string> = { pod: pod.metadata.name };
  labels[ownerLabelKey(address.ownerKind)] = address.ownerName;
  labels.serviceaccount = serviceAccountOf(pod);
  const controlPlaneNs = controlPlaneNamespaceOf(pod);
  if (controlPlaneNs !== "") labels.control_plane_ns = controlPlaneNs;
  const templateHash = pod.metadata.labels?.[POD_TEMPLATE_HASH_LABEL] ?? "";
  if (templateHash !== "") labels.pod_template_hash = templateHash;
  labels.zone = address.zone ?? "";
  return labels;
}

/**
 * Per-address labels of an ExternalWorkload endpoint (README "ExternalWorkload endpoints"), up to
 * and including `zone`. The owner kind is used exactly as the watcher gives it: lower-cased on
 * Get, as written in the owner reference on endpoint profiles, as upstream does.
 */
function externalWorkloadMetricLabels(
  address: Address,
  ew: ExternalWorkload,
): Record<string, string> {
  const labels: Record<string, string> = { external_workload: ew.metadata.name };
  if (address.ownerKind !== "" && address.ownerName !== "") {
    labels[address.ownerKind] = address.ownerName;
  }
  labels.zone = address.zone ?? "";
  return labels;
}

// Skipped inbound ports: README "Pod endpoints".

const SKIP_INBOUND_PORTS_ANNOTATION = "config.linkerd.io/skip-inbound-ports";

/**
 * Whether the pod's proxy is bypassed for inbound traffic on `port`
 * (`config.linkerd.io/skip-inbound-ports`, numbers and ranges only; names are invalid). Such a port
 * gets neither hints nor identity. Ranges are tested, not expanded: `1-65535` is a common value.
 */
function isSkippedInboundPort(pod: Pod, port: number, logger: Logger): boolean {
  const value = pod.metadata.annotations?.[SKIP_INBOUND_PORTS_ANNOTATION] ?? "";
  if (value === "") return false;
  const list = value.endsWith(",") ? value.slice(0, -1) : value;
  let skipped = false;
  for (const raw of list.split(",")) {
    const item = raw.trim();
    const range = parsePortRange(item);
    if (range === undefined) {
      logger.warn("invalid skip-inbound-ports item, ignored", { item, pod: pod.metadata.name });
      continue;
    }
    if (range.lo <= port && port <= range.hi) skipped = true;
  }
  return skipped;
}
