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
