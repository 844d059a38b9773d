/**
 * An opaque-port set that cannot be changed once built. One instance is stored per value and
 * handed to every listener: a listener cannot corrupt the stored set, and so
 * cannot break the change detection that compares against it.
 */
export class PortSet implements ReadonlySet<number> {
  readonly #ports: ReadonlySet<number>;

  private constructor(ports: Iterable<number>) {
    this.#ports = new Set(ports);
  }

  /** The set itself when it already is a `PortSet`, else an immutable copy. */
  static of(ports: Iterable<number>): PortSet {
    return ports instanceof PortSet ? ports : new PortSet(ports);
  }

  get size(): number {
    return this.#ports.size;
  }

  has(port: number): boolean {
    return this.#ports.has(port);
  }

  forEach(
    callback: (port: number, again: number, set: ReadonlySet<number>) => void,
    thisArg?: unknown,
  ): void {
    for (const port of this.#ports) callback.call(thisArg, port, port, this);
  }

  entries(): SetIterator<[number, number]> {
    return this.#ports.entries();
  }

  keys(): SetIterator<number> {
    return this.#ports.keys();
  }

  values(): SetIterator<number> {
    return this.#ports.values();
  }

  [Symbol.iterator](): SetIterator<number> {
    return this.#ports.values();
  }

  /** Set equality: same members, order ignored, so a reordered annotation is no change. */
  equals(other: ReadonlySet<number>): boolean {
    if (other.size !== this.size) return false;
    for (const port of other) if (!this.#ports.has(port)) return false;
    return true;
  }
}
