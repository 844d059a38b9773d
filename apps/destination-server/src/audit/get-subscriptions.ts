import type { NamespacedName } from "@destination/core";
import type { FilterKey } from "@destination/endpoints-watcher";
import { EndpointView, type Update } from "@destination/proto";
import type { MessageSink } from "@destination/translators";
import { HeldSubscriptions } from "./held-subscriptions.js";

/**
 * One distinct thing local `Get` streams hold: a service port under a filter key, translated
 * for a zone. Streams that agree on all four hold the same endpoints, so the audit checks each
 * once.
 */
export interface GetSubscription {
  readonly service: NamespacedName;
  readonly port: number;
  readonly key: FilterKey;
  /** The caller's zone the stream's translation uses (`""` when unknown). */
  readonly zone: string;
  /** Open streams holding it. */
  readonly streams: number;
  /** The authority as a proxy asks for it, for logs (the first stream's). */
  readonly authority: string;
}

/** One stream's hold on a subscription. */
export interface HeldGet {
  /**
   * Where the stream folds every message it is sent, when it is the subscription's witness;
   * undefined for the others.
   */
  readonly witness: EndpointView | undefined;
  /** The stream ended or left the subscription (call once). */
  release(): void;
}

/**
 * The local `Get` subscriptions open right now, counted by stream. The Get handler holds and
 * releases; the audit reads. Remote and federated streams are not here: the audit checks what
 * this cluster's caches serve.
 *
 * Each subscription has at most one witness: a stream that folds what it is sent into an
 * `EndpointView`, the way its proxy folds it. The audit compares that view, so a message lost or
 * wrong between the watcher and the stream shows, not only a stale cache. One view per
 * subscription (not per stream): its streams are sent the same messages from the time they
 * join. A stream that joins while the subscription has no witness becomes it; a stream already
 * open cannot (it did not fold its first messages), so when the witness ends first the audit
 * falls back to the watcher's current set until a new stream joins.
 */
export class GetSubscriptions extends HeldSubscriptions<Omit<GetSubscription, "streams">> {
  readonly #witnesses = new Map<string, EndpointView>();

  constructor() {
    super(subscriptionId);
  }

  /** A stream starts holding `subscription`; it is its witness when there is none yet. */
  hold(subscription: Omit<GetSubscription, "streams">): HeldGet {
    const id = this.idOf(subscription);
    const remove = this.addAs(id, subscription);
    const witness = this.#witnesses.has(id) ? undefined : new EndpointView();
    if (witness !== undefined) this.#witnesses.set(id, witness);
    let released = false;
    return {
      witness,
      release: () => {
        if (released) return;
        released = true;
        remove();
        if (witness !== undefined && this.#witnesses.get(id) === witness) {
          this.#witnesses.delete(id);
        }
      },
    };
  }

  /** What the subscription's witness stream has been sent, folded; undefined without one. */
  witnessOf(subscription: Omit<GetSubscription, "streams">): EndpointView | undefined {
    return this.#witnesses.get(this.idOf(subscription));
  }
}

/** `sink`, folding into `view` every message it accepts (a refused one ends the stream). */
export function witnessedSink(sink: MessageSink<Update>, view: EndpointView): MessageSink<Update> {
  return {
    send(update) {
      const accepted = sink.send(update);
      if (accepted) view.apply(update);
      return accepted;
    },
  };
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
