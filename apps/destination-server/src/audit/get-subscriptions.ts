import type { FilterKey } from "@destination/endpoints-watcher";
import type { ServiceRef } from "../request/request-routes.js";

/**
 * One distinct thing local `Get` streams hold: a service port under a filter key, translated
 * for a zone. Streams that agree on all four hold the same endpoints, so the audit checks each
 * once.
 */
export interface GetSubscription {
  readonly service: ServiceRef;
  readonly port: number;
  readonly key: FilterKey;
  /** The caller's zone the stream's translation uses (`""` when unknown). */
  readonly zone: string;
  /** Open streams holding it. */
  readonly streams: number;
  /** The authority as a proxy asks for it, for logs (the first stream's). */
  readonly authority: string;
}

/**
 * The local `Get` subscriptions open right now, counted by stream. The Get handler adds and
 * removes; the audit reads. Remote and federated streams are not here: the audit checks what
 * this cluster's caches serve.
 */
export class GetSubscriptions {
  readonly #held = new Map<string, { subscription: GetSubscription; streams: number }>();

  /** A stream starts holding `subscription`; returns what stops it holding it (call once). */
  add(subscription: Omit<GetSubscription, "streams">): () => void {
    const id = subscriptionId(subscription);
    const entry = this.#held.get(id);
    if (entry === undefined) {
      this.#held.set(id, { subscription: { ...subscription, streams: 1 }, streams: 1 });
    } else entry.streams += 1;
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
  list(): GetSubscription[] {
    return [...this.#held.values()].map(({ subscription, streams }) => ({
      ...subscription,
      streams,
    }));
  }

  /** Whether `subscription` is still held by some stream. */
  has(subscription: GetSubscription): boolean {
    return this.#held.has(subscriptionId(subscription));
  }
}

function subscriptionId(s: Omit<GetSubscription, "streams">): string {
  const { key } = s;
  return [
    s.service.namespace,
    s.service.name,
    s.port,
    key.hostname,
    key.nodeName,
    key.enableEndpointFiltering,
    s.zone,
  ].join("\u0000");
}
