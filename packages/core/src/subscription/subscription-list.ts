import { newSubscription, type Subscription } from "./subscription.js";

/**
 * The registrations of one publisher, in the order they joined. A listener may register more
 * than once; `remove` ends its oldest registration, as a scan from the front would. Adding and
 * removing cost the same however many listeners there are, so ten thousand streams leaving
 * one publisher at once (a connection closing) stay linear: an array's find and splice made
 * that quadratic, 2 s of blocked event loop at 50,000 listeners.
 */
export class SubscriptionList<L> implements Iterable<Subscription<L>> {
  readonly #all = new Set<Subscription<L>>();
  /** Each listener's live registrations, oldest first: almost always one. */
  readonly #byListener = new Map<L, Subscription<L>[]>();

  get size(): number {
    return this.#all.size;
  }

  /** Registers `listener` once more and returns the new registration. */
  add(listener: L): Subscription<L> {
    const subscription = newSubscription(listener);
    this.#all.add(subscription);
    const registrations = this.#byListener.get(listener);
    if (registrations === undefined) this.#byListener.set(listener, [subscription]);
    else registrations.push(subscription);
    return subscription;
  }

  /** Ends the oldest registration of `listener`; undefined when it has none. */
  remove(listener: L): Subscription<L> | undefined {
    const registrations = this.#byListener.get(listener);
    const subscription = registrations?.[0];
    if (subscription === undefined) return undefined;
    this.delete(subscription);
    return subscription;
  }

  /** Ends this very registration (a no-op when it already ended). */
  delete(subscription: Subscription<L>): void {
    if (!this.#all.delete(subscription)) return;
    subscription.active = false;
    const registrations = this.#byListener.get(subscription.listener);
    if (registrations === undefined) return;
    if (registrations.length === 1) this.#byListener.delete(subscription.listener);
    else registrations.splice(registrations.indexOf(subscription), 1);
  }

  [Symbol.iterator](): IterableIterator<Subscription<L>> {
    return this.#all.values();
  }
}
