import { type Cluster, keyOf, objectKey, type Service } from "@destination/k8s-discovery";
import type { ServerLogger } from "../logging/server-logger.js";
import { type Federation, isFederated, readFederation } from "./federation.js";

/** A federated Get stream, told when its Service's members change or the federation ends. */
export interface FederationListener {
  changed(federation: Federation): void;
  /** The Service was deleted or lost both annotations: the stream ends (api.md §3.9). */
  ended(): void;
}

/**
 * The federated Services of the local cluster and the streams that follow them (api.md §3.9).
 * Create it before the cluster starts, so that it has seen every Service a Get can find.
 */
export class FederatedServices {
  readonly #federations = new Map<string, Federation>();
  readonly #listeners = new Map<string, Set<FederationListener>>();
  readonly #unregister: () => void;

  constructor(
    cluster: Cluster,
    private readonly logger: ServerLogger,
  ) {
    this.#unregister = cluster.services.addHandler({
      add: (svc) => this.#changed(svc),
      update: (_old, svc) => this.#changed(svc),
      delete: (svc) => this.#gone(keyOf(svc)),
    });
  }

  /** The members of a federated Service, or undefined when it is not known as one. */
  get(namespace: string, name: string): Federation | undefined {
    return this.#federations.get(objectKey(namespace, name));
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
    this.#unregister();
  }

  #changed(svc: Service): void {
    const key = keyOf(svc);
    if (!isFederated(svc)) {
      if (this.#federations.has(key)) this.#gone(key);
      return;
    }
    const federation = readFederation(svc, (entry) =>
      this.logger.error(`invalid remote-discovery entry ${JSON.stringify(entry)}; skipped`, {
        service: key,
      }),
    );
    const previous = this.#federations.get(key);
    this.#federations.set(key, federation);
    if (previous !== undefined && sameFederation(previous, federation)) return;
    for (const listener of [...(this.#listeners.get(key) ?? [])]) listener.changed(federation);
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
