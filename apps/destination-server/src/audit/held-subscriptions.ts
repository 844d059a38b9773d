/**
 * What open streams hold, each distinct thing once with the number of streams holding it: the
 * handlers add and remove, the self-audit reads. `idOf` says when two streams hold the same.
 */
export class HeldSubscriptions<T extends object> {
  readonly #held = new Map<string, { subscription: T; streams: number }>();

  constructor(protected readonly idOf: (subscription: T) => string) {}

  /** A stream starts holding `subscription`; returns what stops it holding it (call once). */
  add(subscription: T): () => void {
    return this.addAs(this.idOf(subscription), subscription);
  }

  /** `add`, for a caller that has computed the id already. */
  protected addAs(id: string, subscription: T): () => void {
    const entry = this.#held.get(id);
    if (entry === undefined) this.#held.set(id, { subscription, streams: 1 });
    else entry.streams += 1;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const held = this.#held.get(id);
      if (held === undefined) return;
      held.streams -= 1;
      if (held.streams === 0) this.#held.delete(id);
    };
  }

  /** A snapshot of every subscription with its stream count. */
  list(): (T & { readonly streams: number })[] {
    return [...this.#held.values()].map(({ subscription, streams }) => ({
      ...subscription,
      streams,
    }));
  }

  /** Whether `subscription` is still held by some stream. */
  has(subscription: T): boolean {
    return this.#held.has(this.idOf(subscription));
  }
}
