import type { AddressSetEntry } from "@destination/core";

interface Contribution {
  readonly entries: ReadonlyMap<string, AddressSetEntry>;
  /** When the source last changed, in watcher event order; larger is newer. */
  readonly recency: number;
}

/**
 * The addresses of a service port kept per source (each slice by its key, or the one Endpoints
 * object), so that an endpoint stays while any slice still lists it and a deleted slice takes
 * away exactly what it brought (see README "Slice contributions").
 */
export class AddressContributions {
  readonly #bySource = new Map<string, Contribution>();
  /** Computed on demand, dropped at every change. */
  #namespaces: Set<string> | undefined;

  set(source: string, entries: ReadonlyMap<string, AddressSetEntry>, recency: number): void {
    this.#bySource.set(source, { entries, recency });
    this.#namespaces = undefined;
  }

  delete(source: string): void {
    this.#bySource.delete(source);
    this.#namespaces = undefined;
  }

  clear(): void {
    this.#bySource.clear();
    this.#namespaces = undefined;
  }

  /**
   * The namespaces of the pods and external workloads the addresses of every source are of: a
   * Server of another namespace selects none of them, so it is passed over without a look at
   * each address (every subscribed service hears of every Server).
   */
  workloadNamespaces(): ReadonlySet<string> {
    if (this.#namespaces !== undefined) return this.#namespaces;
    const namespaces = new Set<string>();
    for (const contribution of this.#bySource.values()) {
      for (const entry of contribution.entries.values()) {
        const { pod, externalWorkload } = entry.address;
        const namespace = pod?.metadata.namespace ?? externalWorkload?.metadata.namespace;
        if (namespace !== undefined) namespaces.add(namespace);
      }
    }
    this.#namespaces = namespaces;
    return namespaces;
  }

  /**
   * Every source's addresses; where sources share an ID, the most recently changed one wins.
   * With a single source (the common case) its own map is returned, never to be changed.
   */
  union(): ReadonlyMap<string, AddressSetEntry> {
    if (this.#bySource.size === 1) {
      for (const only of this.#bySource.values()) return only.entries;
    }
    const sources = [...this.#bySource.values()].sort((a, b) => a.recency - b.recency);
    const union = new Map<string, AddressSetEntry>();
    for (const source of sources) {
      for (const [key, entry] of source.entries) union.set(key, entry);
    }
    return union;
  }

  /** Replaces entries through `change` (which returns the entry itself to keep it). */
  replaceEntries(change: (entry: AddressSetEntry) => AddressSetEntry): void {
    for (const [source, contribution] of this.#bySource) {
      let replaced: Map<string, AddressSetEntry> | undefined;
      for (const [key, entry] of contribution.entries) {
        const next = change(entry);
        if (next === entry) continue;
        replaced ??= new Map(contribution.entries);
        replaced.set(key, next);
      }
      if (replaced) {
        this.#bySource.set(source, { ...contribution, entries: replaced });
        this.#namespaces = undefined;
      }
    }
  }
}
