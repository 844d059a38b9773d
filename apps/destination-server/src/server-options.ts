import type { Clock } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";
import type { RemoteClusterFactory } from "@destination/multicluster";
import type { FlagOptions } from "./config/server-flags.js";
import type { ServerLogger } from "./logging/server-logger.js";

/** What no flag sets: the embedder's own objects, and the warm-up (README "In-process"). */
interface EmbeddingOptions {
  /** A cluster to serve (tests, benchmarks); otherwise `manifests` or a real cluster. */
  readonly cluster: Cluster | undefined;
  /**
   * This replica's name in the ExternalWorkload controller's Lease (the binary passes `HOSTNAME`,
   * or `null` when it is unset). The controller runs on a Kubernetes API backend with
   * `enableEndpointSlices` when this is a string; `null` then fails the start, as upstream does
   * without `HOSTNAME`; left out, the controller does not run (README "ExternalWorkload
   * controller").
   */
  readonly hostname: string | null | undefined;
  /**
   * How many Services a start runs through the Get path before ready (README "Warm-up before
   * ready"). Default 256; 0 skips the warm-up.
   */
  readonly warmUpServices: number;
  readonly logger: ServerLogger;
  /**
   * How a linked remote cluster is reached from its Secret's kubeconfig (README "Cluster
   * store"); by default a Kubernetes API cluster. Tests map Secrets to in-memory clusters.
   */
  readonly remoteClusterFactory: RemoteClusterFactory | undefined;
  /**
   * The clock of the cache sync timeout, of the caches it opens (backoff, resync, debounce) and
   * of the remote clusters' sync timeout; the system's by default.
   */
  readonly clock: Clock;
}

/**
 * Everything `startDestinationServer` takes: each flag's option (`SERVER_FLAGS` names the flag,
 * its default and meaning, as README "Flags"), and what no flag sets.
 */
export type DestinationServerOptions = Partial<ResolvedServerOptions>;

/** The options with every default applied. */
export interface ResolvedServerOptions extends FlagOptions, EmbeddingOptions {}
