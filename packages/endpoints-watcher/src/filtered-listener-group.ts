import type { AddressSet, AddressSetEntry, EndpointsListener, Logger } from "@destination/core";
import { addressChanged } from "./address-changed.js";
import type { FilterKey } from "./address-filter.js";
import { type AddressFilter, filterAddresses } from "./address-filter.js";
import { EMPTY_LABELS, frozenAddressSet } from "./address-snapshot.js";
import type { GroupSeries } from "./watcher-metrics.js";

/** The unfiltered addresses of a service port as a group last saw them. */
export interface PortAddresses {
  readonly addresses: ReadonlyMap<string, AddressSetEntry>;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Marks the removal key of an address withdrawn at its old ip:port after its ip or port changed
 * under the same ID (see README "Change detection and diffs").
 */
const MOVED_SUFFIX = "#moved";

function endpointOf(entry: AddressSetEntry): string {
  return `${entry.address.ip}|${entry.address.port}`;
}

const NO_ADDRESSES: PortAddresses = { addresses: new Map(), labels: EMPTY_LABELS };

export interface FilteredListenerGroupOptions {
  readonly key: FilterKey;
  readonly nodeZone: string;
  readonly enableIPv6: boolean;
  readonly localTrafficPolicy: boolean;
  readonly series: GroupSeries;
  readonly logger: Logger;
}

/**
 * The listeners of one service port that share a FilterKey: one filter, one snapshot of what
 * they were told, one diff per change (see README "Filtering" and "Change detection and
 * diffs"). Listeners are called synchronously; a throwing listener is logged and does not stop
 * the others.
 */
export class FilteredListenerGroup {
  readonly key: FilterKey;
  #filter: AddressFilter;
  #available: PortAddresses = NO_ADDRESSES;
  /**
   * The set handed to joining listeners, derived from `from`. While the port's addresses stay
   * the same object, later joiners get the very same set, so the translation and encoding
   * caches downstream (keyed by identity) serve a subscribe storm once per group, not per
   * stream.
   */
  #joined: { from: PortAddresses; set: AddressSet | undefined } | undefined;
  /** What the listeners were last told, by ID key. */
  #snapshot: ReadonlyMap<string, AddressSetEntry> = new Map();
  /**
   * Each listener with its number of registrations, in the order they first joined: a Map, so
   * that a stream leaving is O(1) (an array's indexOf and splice made 10,000 streams of one
   * connection closing at once quadratic).
   */
  readonly #listeners = new Map<EndpointsListener, number>();
  #registrations = 0;
  readonly #series: GroupSeries;
  readonly #logger: Logger;

  constructor(options: FilteredListenerGroupOptions) {
    this.key = options.key;
    this.#filter = {
      key: options.key,
      nodeZone: options.nodeZone,
      enableIPv6: options.enableIPv6,
      localTrafficPolicy: options.localTrafficPolicy,
    };
    this.#series = options.series;
    this.#logger = options.logger;
  }

  get listenerCount(): number {
    return this.#registrations;
  }

  /**
   * The joining listener alone gets the filtered snapshot as one `add`, or nothing.
   * `current` is given only when the port exists and has addresses; the group's snapshot is
   * re-derived from it, as upstream does.
   */
  join(listener: EndpointsListener, current: PortAddresses | undefined, exists: boolean): void {
    if (current !== undefined) {
      this.#available = current;
      if (this.#joined?.from !== current) {
        this.#snapshot = filterAddresses(current.addresses, this.#filter);
        const set =
          this.#snapshot.size > 0 ? frozenAddressSet(this.#snapshot, current.labels) : undefined;
        this.#joined = { from: current, set };
      }
      if (this.#joined.set) this.#deliver(listener, "add", this.#joined.set);
    }
    this.#listeners.set(listener, (this.#listeners.get(listener) ?? 0) + 1);
    this.#registrations++;
    this.#series.subscribers(this.#registrations);
    this.#series.state(this.#snapshot.size, exists);
  }

  /**
   * Removes one registration of `listener`; with `withRemove` it is first told to remove the
   * whole snapshot (skipped when empty). Returns whether it was a member.
   */
  leave(listener: EndpointsListener, withRemove: boolean): boolean {
    const count = this.#listeners.get(listener);
    if (count === undefined) return false;
    if (withRemove && this.#snapshot.size > 0) {
      this.#deliver(listener, "remove", frozenAddressSet(this.#snapshot, EMPTY_LABELS));
    }
    if (count === 1) this.#listeners.delete(listener);
    else this.#listeners.set(listener, count - 1);
    this.#registrations--;
    this.#series.subscribers(this.#registrations);
    return true;
  }

  /**
   * Filters the port's addresses and tells every listener what is new or changed, then what is
   * gone (add first; nothing at all when nothing differs, though the publish is still counted).
   * Removed addresses carry the values last announced.
   */
  publishDiff(current: PortAddresses): void {
    this.#joined = undefined;
    this.#available = current;
    const filtered = filterAddresses(current.addresses, this.#filter);
    const added: [string, AddressSetEntry][] = [];
    const removed: [string, AddressSetEntry][] = [];
    const moved: AddressSetEntry[] = [];
    for (const [key, entry] of filtered) {
      const previous = this.#snapshot.get(key);
      if (previous === undefined || addressChanged(previous.address, entry.address)) {
        added.push([key, entry]);
        if (previous !== undefined && endpointOf(previous) !== endpointOf(entry)) {
          moved.push(previous);
        }
      }
    }
    for (const [key, entry] of this.#snapshot) {
      if (!filtered.has(key)) removed.push([key, entry]);
    }
    if (moved.length > 0) {
      // The proxy knows endpoints by ip:port, so an address that kept its ID but changed
      // its ip or port is withdrawn at the old ip:port too, after the add, unless another
      // address now announces that ip:port. The key differs from the ID key so that consumers
      // keyed by ID never drop the new value.
      const announced = new Set([...filtered.values()].map(endpointOf));
      for (const previous of moved) {
        const endpoint = endpointOf(previous);
        if (!announced.has(endpoint)) removed.push([`${endpoint}${MOVED_SUFFIX}`, previous]);
      }
    }
    this.#snapshot = filtered;
    const add = added.length > 0 ? frozenAddressSet(added, current.labels) : undefined;
    const remove = removed.length > 0 ? frozenAddressSet(removed, EMPTY_LABELS) : undefined;
    for (const [listener, count] of [...this.#listeners]) {
      for (let i = 0; i < count; i++) {
        if (add) this.#deliver(listener, "add", add);
        if (remove) this.#deliver(listener, "remove", remove);
      }
    }
    this.#series.published(filtered.size, true);
  }

  /** The port's addresses are gone; listeners stay and are told to remove everything. */
  noEndpoints(exists: boolean): void {
    this.#joined = undefined;
    if (this.#snapshot.size > 0) {
      const remove = frozenAddressSet(this.#snapshot, EMPTY_LABELS);
      for (const [listener, count] of [...this.#listeners]) {
        for (let i = 0; i < count; i++) this.#deliver(listener, "remove", remove);
      }
    }
    this.#available = NO_ADDRESSES;
    this.#snapshot = new Map();
    this.#series.published(0, exists);
  }

  /** A traffic-policy change re-filters what the group last saw and publishes the difference. */
  setLocalTrafficPolicy(localTrafficPolicy: boolean): void {
    if (this.#filter.localTrafficPolicy === localTrafficPolicy) return;
    this.#filter = { ...this.#filter, localTrafficPolicy };
    this.publishDiff(this.#available);
  }

  /**
   * The subscriber's node arrived or its zone label changed: zone hints are filtered against
   * the new zone, so a node cached after the subscription is not left with no zone for good.
   */
  setNodeZone(nodeZone: string): void {
    if (this.#filter.nodeZone === nodeZone) return;
    this.#filter = { ...this.#filter, nodeZone };
    this.publishDiff(this.#available);
  }

  /** The group is gone: its metric series go too. */
  close(): void {
    this.#series.delete();
  }

  #deliver(listener: EndpointsListener, op: "add" | "remove", set: AddressSet): void {
    try {
      listener[op](set);
    } catch (err) {
      this.#logger.error(`endpoints listener failed on ${op}`, { error: String(err) });
    }
  }
}
