import {
  type Clock,
  type Logger,
  type MetricsRegistry,
  type Secret,
  silentLogger,
  systemClock,
  unrefTimer,
} from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { type Cluster, keyOf } from "@destination/k8s-discovery";
import { type ClusterLink, readLinkSecret } from "./link-secret.js";
import { SecretEvents } from "./secret-events.js";

/** How a remote cluster is reached from its link Secret's kubeconfig (injectable for tests). */
export type RemoteClusterFactory = (name: string, kubeconfigYaml: string) => Cluster;

/**
 * A linked remote cluster: its caches, its endpoints watcher, its domains. A new link Secret for
 * the same name makes a new object, so identity tells a replacement from the cluster it replaced.
 */
export interface RemoteCluster {
  readonly name: string;
  readonly cluster: Cluster;
  readonly watcher: EndpointsWatcher;
  readonly trustDomain: string;
  readonly clusterDomain: string;
}

/**
 * Hears every change of the linked clusters, whatever their name. Called after the store has
 * changed (so `get` already answers the new state) and before the old cluster is stopped.
 */
export interface ClusterListener {
  /** `cluster` is linked now: a new name, or a new link Secret replacing `previous`. */
  linked(cluster: RemoteCluster, previous: RemoteCluster | undefined): void;
  /** The link Secret of `cluster` was deleted: no cluster of that name is linked any more. */
  unlinked(cluster: RemoteCluster): void;
}

export interface ClusterStoreOptions {
  readonly factory: RemoteClusterFactory;
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  /** How long a remote cluster may take to sync before that is logged (never fatal). */
  readonly syncTimeoutMs: number;
  readonly metrics: MetricsRegistry;
  readonly logger?: Logger;
  /** The logger of one remote cluster's watcher and start-up lines; `logger` by default. */
  readonly clusterLogger?: (name: string) => Logger;
  /** The clock of the sync timeout; the system's by default. */
  readonly clock?: Clock;
}

interface Entry {
  readonly remote: RemoteCluster;
  /** The link Secret (`<namespace>/<name>`) this entry was built from. */
  readonly secret: string;
}

/**
 * The linked remote clusters, built from the link Secrets of the controller namespace. Feed it
 * through `events` (a Secret watch store). Entries are visible as soon as their Secret is added;
 * their caches start and sync in the background.
 *
 * One cluster per name: a second link Secret of a name replaces the cluster (the latest Secret
 * wins), and only the Secret an entry was built from unlinks it when deleted, so rotating by
 * "add the new Secret, then delete the old one" keeps the name linked. A Secret update changes
 * nothing, as upstream: a changed Secret is not news until it is deleted or another one added.
 */
export class ClusterStore {
  /** The store to fill with the controller namespace's Secrets. */
  readonly events = new SecretEvents(
    (secret) => this.#added(secret),
    (secret) => this.#deleted(secret),
  );
  readonly #options: ClusterStoreOptions;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<ClusterListener>();

  constructor(options: ClusterStoreOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    options.metrics.collectedGauge(
      "cluster_store_size",
      "The number of linked clusters in the remote discovery cluster store",
      [],
      () => [{ labels: {}, value: this.size }],
    );
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The linked cluster of that name, if any. */
  get(name: string): RemoteCluster | undefined {
    return this.#entries.get(name)?.remote;
  }

  /** The remote clusters' caches, for their `<kind>_cache_size{cluster}` gauges. */
  clusters(): Cluster[] {
    return [...this.#entries.values()].map((e) => e.remote.cluster);
  }

  /** Follows every link, replacement and unlink from now on; returns the unsubscribe. */
  subscribe(listener: ClusterListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Stops every remote cluster and drops it. Listeners are not told: this is shutdown, and
   * whoever holds streams ends them itself.
   */
  async stop(): Promise<void> {
    this.#listeners.clear();
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((e) => this.#stop(e.remote)));
  }

  #added(secret: Secret): void {
    const logger = this.#logger;
    const read = readLinkSecret(secret);
    if (read.kind === "ignored") {
      logger.debug("not a link Secret; ignored", { secret: secret.metadata.name });
      return;
    }
    if (read.kind === "invalid") {
      logger.error(`failed to add cluster ${read.name}: ${read.reason}`, {
        secret: secret.metadata.name,
      });
      return;
    }
    const { name } = read.link;
    let remote: RemoteCluster;
    try {
      remote = this.#create(read.link);
    } catch (err) {
      // The cluster linked before, if any, keeps serving: a broken replacement is no reason to
      // drop a working link.
      logger.error(`failed to add cluster ${name}`, { error: err });
      return;
    }
    const previous = this.#entries.get(name)?.remote;
    this.#entries.set(name, { remote, secret: keyOf(secret) });
    if (previous !== undefined) {
      logger.info(`cluster ${name} relinked by Secret ${secret.metadata.name}`);
    }
    this.#tell((listener) => listener.linked(remote, previous));
    if (previous !== undefined) void this.#stop(previous);
  }

  #deleted(secret: Secret): void {
    const key = keyOf(secret);
    for (const [name, entry] of this.#entries) {
      if (entry.secret !== key) continue;
      this.#entries.delete(name);
      this.#tell((listener) => listener.unlinked(entry.remote));
      void this.#stop(entry.remote);
      return;
    }
    const read = readLinkSecret(secret);
    if (read.kind === "link" && this.#entries.has(read.link.name)) {
      this.#logger.info(
        `link Secret ${secret.metadata.name} deleted; cluster ${read.link.name} stays linked by a newer one`,
      );
    }
  }

  #tell(notify: (listener: ClusterListener) => void): void {
    for (const listener of [...this.#listeners]) {
      try {
        notify(listener);
      } catch (err) {
        this.#logger.error("a cluster store listener failed", { error: err });
      }
    }
  }

  #create(link: ClusterLink): RemoteCluster {
    const { factory, metrics } = this.#options;
    const clusterLogger = this.#options.clusterLogger?.(link.name) ?? this.#logger;
    const cluster = factory(link.name, link.kubeconfigYaml);
    // The watcher registers its handlers before the caches start; `cluster.name` labels its
    // endpoints_* series.
    const watcher = new EndpointsWatcher(cluster, {
      enableEndpointSlices: this.#options.enableEndpointSlices,
      enableIPv6: this.#options.enableIPv6,
      logger: clusterLogger,
      metrics,
    });
    void this.#start(link.name, cluster, clusterLogger);
    return {
      name: link.name,
      cluster,
      watcher,
      trustDomain: link.trustDomain,
      clusterDomain: link.clusterDomain,
    };
  }

  /** Started in the background; failures and slow syncs are logged, never fatal. */
  async #start(name: string, cluster: Cluster, logger: Logger): Promise<void> {
    try {
      await cluster.start();
      const clock = this.#options.clock ?? systemClock;
      let timer: unknown;
      const slow = new Promise<"slow">((resolve) => {
        timer = clock.setTimeout(() => resolve("slow"), this.#options.syncTimeoutMs);
        unrefTimer(timer);
      });
      const result = await Promise.race([cluster.whenSynced().then(() => "synced" as const), slow]);
      clock.clearTimeout(timer);
      if (result === "slow")
        logger.error(`remote cluster ${name} caches not synced yet; serving what is there`);
      else logger.info(`remote cluster ${name} synced`);
    } catch (err) {
      logger.error(`failed to start remote cluster ${name}`, { error: err });
    }
  }

  async #stop(remote: RemoteCluster): Promise<void> {
    remote.watcher.stop();
    try {
      await remote.cluster.stop();
    } catch (err) {
      this.#logger.error(`failed to stop remote cluster ${remote.name}`, { error: err });
    }
  }
}
