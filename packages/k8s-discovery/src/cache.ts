import type { KubeObject } from "@destination/core";
import type { ResourceKind } from "./resource-kind.js";

/**
 * What a watcher registers on a cache. Handlers run synchronously, one event at a time, in the
 * order the cache changed, so a watcher sees one object's changes in order; they must not throw
 * (a throw is logged and the event still reaches the other handlers).
 */
export interface CacheEventHandler<T extends KubeObject> {
  add?(obj: T): void;
  /** Also called as `update(obj, obj)`, with the very same object, by the periodic resync. */
  update?(oldObj: T, newObj: T): void;
  /** Always the last known object: a relist's tombstone is unwrapped before it gets here. */
  delete?(obj: T): void;
}

/** Per-cache counters, exported as metrics by the server. */
export interface CacheStats {
  readonly size: number;
  readonly adds: number;
  readonly updates: number;
  readonly deletes: number;
  readonly relists: number;
  /** Objects skipped because they failed validation. */
  readonly invalid: number;
}

/** One informer-style cache of one kind, cluster-wide. */
export interface ResourceCache<T extends KubeObject> {
  readonly kind: ResourceKind;
  get(namespace: string, name: string): T | undefined;
  /** All objects, or those of one namespace. Order is unspecified. */
  list(namespace?: string): T[];
  readonly size: number;
  stats(): CacheStats;
  /** Registers a handler; returns the function that removes it (a remote cluster that goes). */
  addHandler(handler: CacheEventHandler<T>): () => void;
  /**
   * True once the initial list is stored and its `add` events delivered to the handlers, since
   * watchers build state from those adds.
   */
  hasSynced(): boolean;
  whenSynced(): Promise<void>;
}

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function keyOf(obj: KubeObject): string {
  return objectKey(obj.metadata.namespace, obj.metadata.name);
}
