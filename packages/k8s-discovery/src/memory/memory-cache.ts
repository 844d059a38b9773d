import { type KubeObject, type Logger, silentLogger } from "@destination/core";
import {
  type CacheEventHandler,
  type CacheStats,
  keyOf,
  objectKey,
  type ResourceCache,
} from "../cache.js";
import { describeObject, objectProblem, typedObjectProblem } from "../object-validation.js";
import type { ResourceKind } from "../resource-kind.js";

/**
 * The keys of the objects filed under one index key: most index keys (a pod's IP) file one
 * object, kept as its key alone rather than in a Set of its own.
 */
type IndexEntry = string | Set<string>;

/** A secondary index: the keys an object is filed under. */
export interface IndexDefinition<T> {
  readonly name: string;
  keys(obj: T): readonly string[];
}

/**
 * The store behind every backend: objects by key, secondary indexes, and synchronous event
 * delivery in mutation order. Backends feed it with `apply`, `remove` and
 * `replace`; watchers only see the read-only `ResourceCache` side. It is where objects of every
 * backend enter, so it is where they are validated: an object the watchers could not read is
 * never stored (see `object-validation.ts`).
 */
export class MemoryCache<T extends KubeObject> implements ResourceCache<T> {
  readonly #objects = new Map<string, T>();
  readonly #byName = new NameLookup<T>();
  readonly #handlers = new Set<CacheEventHandler<T>>();
  readonly #indexes = new Map<
    string,
    { def: IndexDefinition<T>; entries: Map<string, IndexEntry> }
  >();
  readonly #logger: Logger;
  readonly #validate: boolean;
  readonly #onInvalid: () => void;
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #adds = 0;
  #updates = 0;
  #deletes = 0;
  #relists = 0;
  #invalid = 0;

  constructor(
    readonly kind: ResourceKind,
    options: {
      indexes?: readonly IndexDefinition<T>[];
      logger?: Logger;
      /** False when the backend validated its objects already (the manifests backend does). */
      validate?: boolean;
      /** Called for each object skipped as invalid (a metric). */
      onInvalid?: () => void;
    } = {},
  ) {
    this.#logger = options.logger ?? silentLogger;
    this.#validate = options.validate ?? true;
    this.#onInvalid = options.onInvalid ?? (() => {});
    for (const def of options.indexes ?? [])
      this.#indexes.set(def.name, { def, entries: new Map() });
  }

  get(namespace: string, name: string): T | undefined {
    // A miss asks the keyed store too: a name holding a "/" can share a key with an object of
    // another namespace, and the keyed store decides which one is stored.
    return this.#byName.get(namespace, name) ?? this.#objects.get(objectKey(namespace, name));
  }

  list(namespace?: string): T[] {
    const all = [...this.#objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  get size(): number {
    return this.#objects.size;
  }

  stats(): CacheStats {
    return {
      size: this.#objects.size,
      adds: this.#adds,
      updates: this.#updates,
      deletes: this.#deletes,
      relists: this.#relists,
      invalid: this.#invalid,
    };
  }

  /** Objects filed under `key` in the named index. */
  byIndex(index: string, key: string): T[] {
    const entry = this.#indexes.get(index);
    if (!entry) throw new Error(`no index ${index} on the ${this.kind} cache`);
    const keys = entry.entries.get(key);
    if (keys === undefined) return [];
    if (typeof keys === "string") {
      const obj = this.#objects.get(keys);
      return obj === undefined ? [] : [obj];
    }
    const found: T[] = [];
    for (const k of keys) {
      const obj = this.#objects.get(k);
      if (obj) found.push(obj);
    }
    return found;
  }

  addHandler(handler: CacheEventHandler<T>): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  whenSynced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  /**
   * Adds or replaces an object, emitting `add` or `update(old, new)`. An invalid object is
   * skipped with a warning and changes nothing: a stored earlier version stays. `typed`: read
   * from protobuf, checked as `replace` checks typed objects.
   */
  apply(obj: T, options: { typed?: boolean } = {}): void {
    if (this.#valid(obj, options.typed === true)) this.#applyValid(obj);
  }

  #applyValid(obj: T): void {
    const key = keyOf(obj);
    const old = this.#objects.get(key);
    this.#store(key, obj, old);
    if (old === undefined) {
      this.#adds++;
      this.#emit("add", (h) => h.add?.(obj));
    } else {
      this.#updates++;
      this.#emit("update", (h) => h.update?.(old, obj));
    }
  }

  /** Removes an object, emitting `delete` with the last known object. */
  remove(namespace: string | undefined, name: string): T | undefined {
    const key = objectKey(namespace, name);
    const old = this.#objects.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#objects.delete(key);
    this.#byName.delete(old);
    this.#deletes++;
    this.#emit("delete", (h) => h.delete?.(old));
    return old;
  }

  /**
   * Reconciles the store with a full list (a relist): new keys are added, keys whose
   * resourceVersion changed are updated, vanished keys are deleted, unchanged keys emit
   * nothing; invalid objects are skipped as in `apply`. The first call is the initial list; the
   * cache is synced once its events are out. `typed`: the objects were read from protobuf, so
   * only what their reader cannot rule out is checked (see `typedObjectProblem`).
   */
  replace(objects: readonly T[], options: { typed?: boolean } = {}): void {
    const typed = options.typed === true;
    if (this.#synced) this.#relists++;
    if (this.#objects.size === 0) {
      // Nothing to reconcile (the initial list): store as they come, without a second map.
      for (const obj of objects) {
        if (this.#valid(obj, typed)) this.#applyValid(obj);
      }
      this.markSynced();
      return;
    }
    const incoming = new Map<string, T>();
    // An invalid object in the list changes nothing either: its stored version is not deleted.
    const skipped = new Set<string>();
    for (const obj of objects) {
      if (this.#valid(obj, typed)) incoming.set(keyOf(obj), obj);
      else {
        const { namespace, name } = (obj as Partial<KubeObject>).metadata ?? {};
        if (typeof name === "string") {
          skipped.add(objectKey(typeof namespace === "string" ? namespace : undefined, name));
        }
      }
    }
    for (const [key, old] of [...this.#objects]) {
      if (!incoming.has(key) && !skipped.has(key)) {
        this.remove(old.metadata.namespace, old.metadata.name);
      }
    }
    for (const [key, obj] of incoming) {
      const old = this.#objects.get(key);
      if (old !== undefined && sameVersion(old, obj)) continue;
      // Checked above already: a second check was a tenth of a start's CPU.
      this.#applyValid(obj);
    }
    this.markSynced();
  }

  /** Marks the initial list as delivered to the handlers. */
  markSynced(): void {
    if (this.#synced) return;
    this.#synced = true;
    for (const resolve of this.#syncWaiters.splice(0)) resolve();
  }

  /** The periodic resync: `update(obj, obj)` for every object, identity kept. */
  resync(): void {
    for (const obj of [...this.#objects.values()]) {
      this.#emit("update", (h) => h.update?.(obj, obj));
    }
  }

  /** Checks an object entering the cache; an invalid one is logged and counted. */
  #valid(obj: T, typed = false): boolean {
    if (!this.#validate) return true;
    const problem = typed ? typedObjectProblem(this.kind, obj) : objectProblem(this.kind, obj);
    if (problem === undefined) return true;
    this.#invalid++;
    this.#onInvalid();
    this.#logger.warn(`skipping an invalid ${this.kind} ${describeObject(obj)}: ${problem}`, {
      kind: this.kind,
      object: describeObject(obj),
      problem,
    });
    return false;
  }

  #store(key: string, obj: T, old: T | undefined): void {
    if (old !== undefined) {
      this.#unindex(key, old);
      this.#byName.delete(old);
    }
    this.#objects.set(key, obj);
    this.#byName.set(obj);
    for (const { def, entries } of this.#indexes.values()) {
      for (const k of this.#indexKeys(def, obj)) {
        const filed = entries.get(k);
        if (filed === undefined) entries.set(k, key);
        else if (typeof filed !== "string") filed.add(key);
        else if (filed !== key) entries.set(k, new Set([filed, key]));
      }
    }
  }

  #unindex(key: string, obj: T): void {
    for (const { def, entries } of this.#indexes.values()) {
      for (const k of this.#indexKeys(def, obj)) {
        const filed = entries.get(k);
        if (filed === undefined) continue;
        if (typeof filed === "string") {
          if (filed === key) entries.delete(k);
        } else if (filed.delete(key) && filed.size === 0) entries.delete(k);
      }
    }
  }

  /** A malformed object (a string where a list belongs, say) is stored but not indexed. */
  #indexKeys(def: IndexDefinition<T>, obj: T): readonly string[] {
    try {
      return def.keys(obj);
    } catch (err) {
      this.#logger.warn(`${this.kind} ${keyOf(obj)} cannot be indexed by ${def.name}`, {
        error: String(err),
      });
      return [];
    }
  }

  #emit(event: string, call: (h: CacheEventHandler<T>) => void): void {
    for (const handler of [...this.#handlers]) {
      try {
        call(handler);
      } catch (err) {
        this.#logger.error(`${this.kind} ${event} handler failed`, { error: String(err) });
      }
    }
  }
}

function sameVersion(a: KubeObject, b: KubeObject): boolean {
  const rv = a.metadata.resourceVersion;
  return rv !== undefined && rv === b.metadata.resourceVersion;
}

/**
 * The objects of a cache by namespace, then name: a lookup that needs no joined key. A get
 * that built `namespace/name` per call showed in profiles of cold Gets (pods per slice, owners
 * per pod). It mirrors the cache's keyed store: an object is here exactly when it is stored.
 */
export class NameLookup<T extends { metadata: { namespace?: string; name: string } }> {
  readonly #byNamespace = new Map<string, Map<string, T>>();

  get(namespace: string | undefined, name: string): T | undefined {
    // A missing and an empty namespace are one key, as in `objectKey`.
    return this.#byNamespace.get(namespace || "")?.get(name);
  }

  set(obj: T): void {
    const namespace = obj.metadata.namespace || "";
    let byName = this.#byNamespace.get(namespace);
    if (byName === undefined) {
      byName = new Map();
      this.#byNamespace.set(namespace, byName);
    }
    byName.set(obj.metadata.name, obj);
  }

  delete(obj: T): void {
    const namespace = obj.metadata.namespace || "";
    const byName = this.#byNamespace.get(namespace);
    if (byName?.get(obj.metadata.name) !== obj) return;
    byName.delete(obj.metadata.name);
    if (byName.size === 0) this.#byNamespace.delete(namespace);
  }
}
