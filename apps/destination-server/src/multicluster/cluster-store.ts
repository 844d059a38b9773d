import { EndpointsWatcher } from "@destination/endpoints-watcher";
import type { Cluster, MetricsRegistry, Secret } from "@destination/k8s-discovery";
import type { ServerLogger } from "../logging/server-logger.js";
import { type ClusterLink, readLinkSecret } from "./link-secret.js";
import { SecretEvents } from "./secret-events.js";

/** How a remote cluster is reached from its link Secret's kubeconfig (injectable for tests). */
export type RemoteClusterFactory = (name: string, kubeconfigYaml: string) => Cluster;

/** A linked remote cluster (watchers.md C-2): its caches, its endpoints watcher, its domains. */
export interface RemoteCluster {
  readonly name: string;
  readonly cluster: Cluster;
  readonly watcher: EndpointsWatcher;
  readonly trustDomain: string;
  readonly clusterDomain: string;
}

export interface ClusterStoreOptions {
  readonly factory: RemoteClusterFactory;
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  /** How long a remote cluster may take to sync before that is logged (C-6: never fatal). */
  readonly syncTimeoutMs: number;
  readonly logger: ServerLogger;
  readonly metrics: MetricsRegistry;
}

/**
 * The linked remote clusters, built from the link Secrets of the controller namespace
 * (watchers.md C-1..C-5). Feed it through `events` (a Secret watch store). Entries are visible
 * as soon as their Secret is added; their caches start and sync in the background.
 */
export class ClusterStore {
  /** The store to fill with the controller namespace's Secrets. */
  readonly events = new SecretEvents(
    (secret) => this.#added(secret),
    (secret) => this.#deleted(secret),
  );
  readonly #options: ClusterStoreOptions;
  readonly #entries = new Map<string, RemoteCluster>();

  constructor(options: ClusterStoreOptions) {
    this.#options = options;
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

  /** C-5: the linked cluster of that name, if any. */
  get(name: string): RemoteCluster | undefined {
    return this.#entries.get(name);
  }

  /** The remote clusters' caches, for their `<kind>_cache_size{cluster}` gauges. */
  clusters(): Cluster[] {
    return [...this.#entries.values()].map((e) => e.cluster);
  }

  /** Stops every remote cluster and drops it. */
  async stop(): Promise<void> {
    await Promise.all([...this.#entries.keys()].map((name) => this.#drop(name)));
  }

  #added(secret: Secret): void {
    const { logger } = this.#options;
    const read = readLinkSecret(secret);
    if (read.kind === "ignored") {
      logger.trace("not a link Secret; ignored", { secret: secret.metadata.name });
      return;
    }
    if (read.kind === "invalid") {
      logger.error(`failed to add cluster ${read.name}: ${read.reason}`, {
        secret: secret.metadata.name,
      });
      return;
    }
    // C-4 fix: a second Secret for a name replaces the entry, and the old one is stopped first.
    if (this.#entries.has(read.link.name)) void this.#drop(read.link.name);
    try {
      this.#entries.set(read.link.name, this.#create(read.link));
    } catch (err) {
      logger.error(`failed to add cluster ${read.link.name}`, { error: err });
    }
  }

  #deleted(secret: Secret): void {
    const read = readLinkSecret(secret);
    const name =
      read.kind === "ignored" ? undefined : read.kind === "link" ? read.link.name : read.name;
    if (name !== undefined && this.#entries.has(name)) void this.#drop(name);
  }

  #create(link: ClusterLink): RemoteCluster {
    const { factory, logger, metrics } = this.#options;
    const clusterLogger = logger.child({ cluster: link.name });
    const cluster = factory(link.name, link.kubeconfigYaml);
    // The watcher registers its handlers before the caches start; `cluster.name` labels
    // its endpoints_* series.
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

  /** C-2 / C-6: started in the background; failures and slow syncs are logged, never fatal. */
  async #start(name: string, cluster: Cluster, logger: ServerLogger): Promise<void> {
    try {
      await cluster.start();
      let timer: NodeJS.Timeout | undefined;
      const slow = new Promise<"slow">((resolve) => {
        timer = setTimeout(() => resolve("slow"), this.#options.syncTimeoutMs);
        timer.unref();
      });
      const result = await Promise.race([cluster.whenSynced().then(() => "synced" as const), slow]);
      clearTimeout(timer);
      if (result === "slow")
        logger.error(`remote cluster ${name} caches not synced yet; serving what is there`);
      else logger.info(`remote cluster ${name} synced`);
    } catch (err) {
      logger.error(`failed to start remote cluster ${name}`, { error: err });
    }
  }

  async #drop(name: string): Promise<void> {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    this.#entries.delete(name);
    entry.watcher.stop();
    try {
      await entry.cluster.stop();
    } catch (err) {
      this.#options.logger.error(`failed to stop remote cluster ${name}`, { error: err });
    }
  }
}
