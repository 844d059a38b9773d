// Sub-messages that many addresses have in common, built once and shared. An `Update` lives as
// long as the address set it was translated from (its streams share it), so every object in it
// is kept, and a first Get on a cold service builds ten of them per address: the hint and the
// identity were six of those, the same for every pod of one service account. Shared messages are
// frozen; like every message handed out, they are never changed.
import type {
  ProtocolHint,
  ProtocolHint_H2,
  ProtocolHint_Opaque,
  TlsIdentity,
  TlsIdentity_DnsLikeIdentity,
} from "@destination/proto";

/** The hints' empty protocol messages. */
const H2: ProtocolHint_H2 = Object.freeze({
  $typeName: "io.linkerd.proxy.destination.ProtocolHint.H2",
});
const OPAQUE: ProtocolHint_Opaque = Object.freeze({
  $typeName: "io.linkerd.proxy.destination.ProtocolHint.Opaque",
});

/** Which protocol a hint names: none (meshed, nothing more), HTTP/2 upgrade, or opaque. */
export type HintProtocol = "none" | "h2" | "opaque";

/** By protocol, then opaque-transport port (undefined: none): a handful in any cluster. */
const hints: Readonly<Record<HintProtocol, Map<number | undefined, ProtocolHint>>> = {
  none: new Map(),
  h2: new Map(),
  opaque: new Map(),
};

/** The hint for a protocol, with opaque transport to `inboundPort` when one is given. */
export function sharedProtocolHint(
  protocol: HintProtocol,
  inboundPort: number | undefined,
): ProtocolHint {
  const byPort = hints[protocol];
  let hint = byPort.get(inboundPort);
  if (hint === undefined) {
    hint = {
      $typeName: "io.linkerd.proxy.destination.ProtocolHint",
      protocol:
        protocol === "h2"
          ? Object.freeze({ case: "h2" as const, value: H2 })
          : protocol === "opaque"
            ? Object.freeze({ case: "opaque" as const, value: OPAQUE })
            : Object.freeze({ case: undefined }),
    };
    if (inboundPort !== undefined) {
      hint.opaqueTransport = Object.freeze({
        $typeName: "io.linkerd.proxy.destination.ProtocolHint.OpaqueTransport",
        inboundPort,
      });
    }
    byPort.set(inboundPort, Object.freeze(hint));
  }
  return hint;
}

/** By trust domain, control-plane namespace, namespace and service account. */
type Nested<T> = Map<string, T>;
const identities: Nested<Nested<Nested<Nested<TlsIdentity>>>> = new Map();
let identityCount = 0;
/** Service accounts come and go: past this many, the cache starts again empty. */
const MAX_IDENTITIES = 10_000;

function inner<T>(map: Nested<Nested<T>>, key: string): Nested<T> {
  let found = map.get(key);
  if (found === undefined) {
    found = new Map();
    map.set(key, found);
  }
  return found;
}

/**
 * The DNS-like identity of a meshed pod's proxy,
 * `<sa>.<ns>.serviceaccount.identity.<control-plane-ns>.<trust-domain>`, also its server name.
 */
export function sharedPodIdentity(
  trustDomain: string,
  controlPlaneNs: string,
  namespace: string,
  serviceAccount: string,
): TlsIdentity {
  const byAccount = inner(inner(inner(identities, trustDomain), controlPlaneNs), namespace);
  let identity = byAccount.get(serviceAccount);
  if (identity !== undefined) return identity;
  if (identityCount >= MAX_IDENTITIES) {
    identities.clear();
    identityCount = 0;
    return sharedPodIdentity(trustDomain, controlPlaneNs, namespace, serviceAccount);
  }
  // The identity and the server name are one and the same message.
  const name: TlsIdentity_DnsLikeIdentity = Object.freeze({
    $typeName: "io.linkerd.proxy.destination.TlsIdentity.DnsLikeIdentity",
    name: `${serviceAccount}.${namespace}.serviceaccount.identity.${controlPlaneNs}.${trustDomain}`,
  });
  identity = Object.freeze({
    $typeName: "io.linkerd.proxy.destination.TlsIdentity",
    strategy: Object.freeze({ case: "dnsLikeIdentity" as const, value: name }),
    serverName: name,
  });
  byAccount.set(serviceAccount, identity);
  identityCount++;
  return identity;
}
