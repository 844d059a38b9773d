import type { Clock } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";
import type { RemoteClusterFactory } from "@destination/multicluster";
import type { Http2ClientParams } from "@destination/proto";
import type { ServerLogger } from "./logging/server-logger.js";

/** Everything `startDestinationServer` takes; the CLI builds it from flags (README "Flags"). */
export interface DestinationServerOptions {
  /** gRPC listen address, Go style (`:8086`, `127.0.0.1:0`). Default `:8086`. */
  readonly addr?: string;
  /** Admin listen address. Default `:9996`. */
  readonly metricsAddr?: string;
  /**
   * Serve CPU and heap profiles on the admin port under `/debug/pprof/` (`-enable-pprof`).
   * Default false: the profiler is then never loaded.
   */
  readonly enablePprof?: boolean;
  /** A cluster to serve (tests, benchmarks); otherwise `manifests` or a real cluster. */
  readonly cluster?: Cluster;
  /** A folder of manifests to serve and watch. */
  readonly manifests?: string;
  readonly kubeconfig?: string;
  readonly kubeContext?: string;
  /**
   * How long a connection to the API server may show no life (k8s-discovery README "Dead
   * connections"); 12 s by default.
   */
  readonly kubeApiSilenceTimeoutMs?: number;
  readonly controllerNamespace?: string;
  /**
   * This replica's name in the ExternalWorkload controller's Lease (the binary passes `HOSTNAME`,
   * or `null` when it is unset). The controller runs on a Kubernetes API backend with
   * `enableEndpointSlices` when this is a string; `null` then fails the start, as upstream does
   * without `HOSTNAME`; left out, the controller does not run (README "ExternalWorkload
   * controller").
   */
  readonly hostname?: string | null;
  /** `-export-queue-metrics`: the controller's `workqueue_*` metrics. Default true. */
  readonly exportQueueMetrics?: boolean;
  readonly identityTrustDomain?: string;
  readonly clusterDomain?: string;
  /** `outbound-transport-mode=transport-header`. */
  readonly forceOpaqueTransport?: boolean;
  readonly enableH2Upgrade?: boolean;
  readonly enableEndpointSlices?: boolean;
  readonly enableIpv6?: boolean;
  readonly defaultOpaquePorts?: ReadonlySet<number>;
  readonly streamQueueCapacity?: number;
  readonly meshedHttp2ClientParams?: Http2ClientParams;
  readonly extEndpointZoneWeights?: boolean;
  /** Shortest client ping interval accepted (README "Transport and keepalive"). Default 10 s. */
  readonly minPingIntervalMs?: number;
  readonly keepalivePermitWithoutCalls?: boolean;
  /**
   * Streams per connection (README "Transport and limits"). Default 10,000; 0 lifts the cap
   * (grpc-js' own default, which is node's: effectively none).
   */
  readonly maxConcurrentStreams?: number;
  /**
   * Largest request message accepted, compressed or after inflating, in bytes; larger ones end
   * the call with RESOURCE_EXHAUSTED. Default 4 MiB.
   */
  readonly maxReceiveMessageLength?: number;
  /** A connection without calls for this long is closed with GOAWAY. 0 (default): never. */
  readonly maxConnectionIdleMs?: number;
  /** A connection older than this is closed with GOAWAY. 0 (default): never. */
  readonly maxConnectionAgeMs?: number;
  /** How long calls may still run on a connection closed for its age. 0 (default): no limit. */
  readonly maxConnectionAgeGraceMs?: number;
  /**
   * Node's HTTP/2 session memory cap, in MB (`grpc-node.max_session_memory`); over it, new
   * streams are refused. 0 (default): grpc-js' default, no cap.
   */
  readonly maxSessionMemoryMb?: number;
  /**
   * Calls that have opened a stream but not yet sent their request message, across every
   * connection; more are refused with RESOURCE_EXHAUSTED. Default 1,000; 0: no bound.
   */
  readonly maxPendingRequests?: number;
  /**
   * How long a call may take to send its request message before it is ended with
   * DEADLINE_EXCEEDED. Default 10 s; 0: no bound.
   */
  readonly requestMessageTimeoutMs?: number;
  /**
   * How often the self-audit compares every Get stream with fresh lists from the API server
   * (README "Self-audit"), ±10 % jitter. Default 5 min; 0 turns it off. Cluster backend only.
   */
  readonly auditIntervalMs?: number;
  /** How long startup waits for the caches before it fails. Default 60 s. */
  readonly cacheSyncTimeoutMs?: number;
  /** Default 10 s. */
  readonly shutdownTimeoutMs?: number;
  /**
   * How many Services a start runs through the Get path before ready (README "Warm-up before
   * ready"). Default 256; 0 skips the warm-up.
   */
  readonly warmUpServices?: number;
  readonly logger?: ServerLogger;
  /**
   * How a linked remote cluster is reached from its Secret's kubeconfig (README "Cluster
   * store"); by default a Kubernetes API cluster. Tests map Secrets to in-memory clusters.
   */
  readonly remoteClusterFactory?: RemoteClusterFactory;
  /**
   * The clock of the cache sync timeout, of the caches it opens (backoff, resync, debounce) and
   * of the remote clusters' sync timeout; the system's by default.
   */
  readonly clock?: Clock;
}

/** The options with every default applied. */
export interface ResolvedServerOptions
  extends Required<
    Omit<
      DestinationServerOptions,
      | "cluster"
      | "manifests"
      | "kubeconfig"
      | "kubeContext"
      | "hostname"
      | "meshedHttp2ClientParams"
      | "remoteClusterFactory"
    >
  > {
  readonly cluster: Cluster | undefined;
  readonly manifests: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly kubeContext: string | undefined;
  readonly hostname: string | null | undefined;
  readonly meshedHttp2ClientParams: Http2ClientParams | undefined;
  readonly remoteClusterFactory: RemoteClusterFactory | undefined;
}
