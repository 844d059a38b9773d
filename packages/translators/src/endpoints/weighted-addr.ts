// The one place that decides what a proxy learns about an endpoint: labels, identity, protocol
// hints. Get (endpoint-translation.ts) and endpoint profiles (endpoint-profile-translator.ts)
// both build their `WeightedAddr` here.
import type { Address, ExternalWorkload, Logger, Pod } from "@destination/core";
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
import type { EndpointTranslatorConfig } from "../config.js";
import {
  controlPlaneNamespaceOf,
  externalWorkloadMetricLabels,
  podMetricLabels,
  serviceAccountOf,
} from "./metric-labels.js";
import { isProxyMetaPort, proxyInboundPort } from "./proxy-env.js";
import { sharedPodIdentity, sharedProtocolHint } from "./shared-messages.js";
import { isSkippedInboundPort } from "./skip-inbound-ports.js";

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
