import type { Http2ClientParams } from "@destination/proto";

/**
 * The server flags that shape a `WeightedAddr` (see README "Endpoints on Get"). One value is
 * shared by every Get and endpoint-profile stream of a cluster; a remote cluster (multicluster
 * discovery) gets its own copy with its own trust domain.
 */
export interface EndpointTranslatorConfig {
  /** `--controller-namespace`, compared with the pod label `linkerd.io/control-plane-ns`. */
  readonly controllerNamespace: string;
  /** `--identity-trust-domain`; an empty value turns pod identities off. */
  readonly identityTrustDomain: string;
  /** `--enable-h2-upgrade`: the `h2` hint for meshed pods and gateway endpoints. */
  readonly enableH2Upgrade: boolean;
  /** `--outbound-transport-mode=transport-header`: opaque transport on every meshed port. */
  readonly forceOpaqueTransport: boolean;
  /** `--meshed-http2-client-params`; absent means no `http2` field is ever sent. */
  readonly meshedHttp2ClientParams?: Http2ClientParams | undefined;
  /** `--ext-endpoint-zone-weights`: weight ×10 for endpoints in the caller's zone. */
  readonly extEndpointZoneWeights: boolean;
  /** `--default-opaque-ports`, used where a workload has no opaque-ports annotation. */
  readonly defaultOpaquePorts: ReadonlySet<number>;
}
