import { type Logger, type Service, silentLogger } from "@destination/core";
import { type Cluster, keyOf, objectKey } from "@destination/k8s-discovery";
import type { ClusterStore, RemoteCluster } from "./cluster-store.js";
import { type Federation, isFederated, type RemoteMember, readFederation } from "./federation.js";

/** A remote member whose cluster is linked: the Service of that name in that cluster. */
export interface LinkedMember {
  readonly service: string;
  readonly cluster: RemoteCluster;
}

/** A federated Service's members as they can be served now; services are in its namespace. */
export interface FederatedMembers {
  /** Remote members whose cluster is linked, in annotation order. */
  readonly linked: readonly LinkedMember[];
  /** Remote members whose cluster is not linked (yet): they join when it is. */
  readonly unlinked: readonly RemoteMember[];
  /** The local service of `local-discovery`, when set. */
  readonly local: string | undefined;
}

/** A follower of one federated Service, told when its members change or the federation ends. */
export interface FederationListener {
  /**
   * The members changed: the annotations named others, or a member's cluster was linked,
   * relinked (a new `RemoteCluster` object) or unlinked.
   */
  changed(members: FederatedMembers): void;
  /** The Service was deleted or lost both annotations. */
  ended(): void;
}

/**
 * The federated Services of the local cluster, resolved against the linked clusters, and their
 * followers. Create it before the cluster starts, so that it has seen every Service a Get can
 * find.
 */
export class FederatedServices {
  readonly #federations = new Map<string, Federation>();
  readonly #listeners = new Map<string, Set<FederationListener>>();
  readonly #unregister: (() => void)[];
  readonly #logger: Logger;

  constructor(
    cluster: Cluster,
    private readonly clusters: ClusterStore,
    logger: Logger = silentLogger,
  ) {
    this.#logger = logger;
    this.#unregister = [
      cluster.services.addHandler({
        add: (svc) => this.#changed(svc),
        update: (_old, svc) => this.#changed(svc),
        delete: (svc) => this.#gone(keyOf(svc)),
      }),
      clusters.subscribe({
        linked: (remote) => this.#clusterChanged(remote.name),
        unlinked: (remote) => this.#clusterChanged(remote.name),
      }),
    ];
  }

  /** The members of a federated Service, or undefined when it is not known as one. */
  get(namespace: string, name: string): FederatedMembers | undefined {
    const federation = this.#federations.get(objectKey(namespace, name));
    return federation === undefined ? undefined : this.#resolve(federation);
  }

  /** Follows a federated Service; returns the unsubscribe. */
  subscribe(namespace: string, name: string, listener: FederationListener): () => void {
    const key = objectKey(namespace, name);
    let listeners = this.#listeners.get(key);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(key, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.#listeners.get(key);
      current?.delete(listener);
      if (current?.size === 0) this.#listeners.delete(key);
    };
  }

  stop(): void {
    for (const unregister of this.#unregister.splice(0)) unregister();
  }

  #changed(svc: Service): void {
    const key = keyOf(svc);
    if (!isFederated(svc)) {
      if (this.#federations.has(key)) this.#gone(key);
      return;
    }
    const federation = readFederation(svc, (entry) =>
      this.#logger.error(`invalid remote-discovery entry ${JSON.stringify(entry)}; skipped`, {
        service: key,
      }),
    );
    const previous = this.#federations.get(key);
    this.#federations.set(key, federation);
    if (previous !== undefined && sameFederation(previous, federation)) return;
    this.#tell(key, federation);
  }

  /** A cluster came, went or was replaced: every followed federation naming it hears of it. */
  #clusterChanged(name: string): void {
    for (const key of [...this.#listeners.keys()]) {
      const federation = this.#federations.get(key);
      if (federation?.remotes.some((r) => r.cluster === name)) this.#tell(key, federation);
    }
  }

  #tell(key: string, federation: Federation): void {
    const listeners = this.#listeners.get(key);
    if (listeners === undefined) return;
    const members = this.#resolve(federation);
    for (const listener of [...listeners]) listener.changed(members);
  }

  #resolve(federation: Federation): FederatedMembers {
    const linked: LinkedMember[] = [];
    const unlinked: RemoteMember[] = [];
    for (const member of federation.remotes) {
      const cluster = this.clusters.get(member.cluster);
      if (cluster === undefined) unlinked.push(member);
      else linked.push({ service: member.service, cluster });
    }
    return { linked, unlinked, local: federation.local };
  }

  #gone(key: string): void {
    this.#federations.delete(key);
    const listeners = this.#listeners.get(key);
    this.#listeners.delete(key);
    for (const listener of [...(listeners ?? [])]) listener.ended();
  }
}

function sameFederation(a: Federation, b: Federation): boolean {
  const remotes = (f: Federation) => f.remotes.map((r) => `${r.service}@${r.cluster}`).join(",");
  return a.local === b.local && remotes(a) === remotes(b);
}
