import type { Address, AddressId, AddressSet, AddressSetEntry } from "@destination/core";

// Everything handed to listeners is immutable. Entries are frozen once, when an address
// is built, so sets can share them; each published set gets its own read-only map.

/**
 * A frozen entry; the pod or ExternalWorkload object it points to is the cache's own. The ID,
 * address and zone hints are frozen in place, not copied: callers build them for this entry
 * (or pass parts of an entry already frozen), and a cold subscription builds thousands.
 */
export function frozenEntry(id: AddressId, address: Address): AddressSetEntry {
  // Most endpoints have no hints and share one frozen empty list: nothing to walk.
  const zones = address.forZones;
  if (zones.length > 0) {
    for (let i = 0; i < zones.length; i++) Object.freeze(zones[i]);
    Object.freeze(zones);
  }
  return Object.freeze({ id: Object.freeze(id), address: Object.freeze(address) });
}

/** A map that offers no way to change it, not even through a cast to Map. */
class ReadonlyEntryMap implements ReadonlyMap<string, AddressSetEntry> {
  readonly #entries: Map<string, AddressSetEntry>;

  constructor(entries: Map<string, AddressSetEntry>) {
    this.#entries = entries;
    Object.freeze(this);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): AddressSetEntry | undefined {
    return this.#entries.get(key);
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  forEach(
    callback: (
      value: AddressSetEntry,
      key: string,
      map: ReadonlyMap<string, AddressSetEntry>,
    ) => void,
    thisArg?: unknown,
  ): void {
    for (const [key, value] of this.#entries) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[string, AddressSetEntry]> {
    return this.#entries.entries();
  }

  keys(): MapIterator<string> {
    return this.#entries.keys();
  }

  values(): MapIterator<AddressSetEntry> {
    return this.#entries.values();
  }

  [Symbol.iterator](): MapIterator<[string, AddressSetEntry]> {
    return this.#entries.entries();
  }
}

/**
 * An immutable AddressSet holding these entries in ID-key order (stable output for
 * translators and tests). The caller must not keep using `entries` for anything that mutates:
 * a Map already in order is used as it is.
 */
export function frozenAddressSet(
  entries: Iterable<readonly [string, AddressSetEntry]>,
  labels: Readonly<Record<string, string>>,
): AddressSet {
  // A map in order already (a first listener's whole snapshot) is wrapped, not copied.
  let map: Map<string, AddressSetEntry>;
  if (entries instanceof Map && isSorted(entries.keys())) {
    map = entries;
  } else {
    const list = [...entries];
    map = new Map(isSorted(list.map(([key]) => key)) ? list : list.sort(byKey));
  }
  return Object.freeze({
    addresses: new ReadonlyEntryMap(map),
    labels: Object.freeze({ ...labels }),
  });
}

function byKey([a]: readonly [string, unknown], [b]: readonly [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Slices usually list their endpoints in order already: checking is cheaper than sorting. */
function isSorted(keys: Iterable<string>): boolean {
  let previous: string | undefined;
  for (const key of keys) {
    if (previous !== undefined && previous > key) return false;
    previous = key;
  }
  return true;
}

export const EMPTY_LABELS: Readonly<Record<string, string>> = Object.freeze({});
