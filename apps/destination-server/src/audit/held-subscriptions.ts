// What open streams hold, for the self-audit: the registry of distinct subscriptions, and Get's
// and GetProfile's kinds of it.
import type { NamespacedName } from "@destination/core";
import type { FilterKey } from "@destination/endpoints-watcher";
import type { WorkloadTarget } from "@destination/pod-watcher";
import { EndpointView, type Update } from "@destination/proto";
import type { MessageSink } from "@destination/translators";

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

/** A service-profile stream: a Service port, named by an FQN, seen from a token namespace. */
export interface ServiceProfileTarget {
  readonly flow: "service";
  readonly service: NamespacedName;
  readonly fqn: string;
  readonly port: number;
  readonly tokenNamespace: string;
}

/** An endpoint-profile stream: what the workload watcher follows for it. */
export interface EndpointProfileTarget {
  readonly flow: "endpoint";
  readonly target: WorkloadTarget;
}

/** One distinct thing `GetProfile` streams hold, and how many streams hold it. */
export type ProfileSubscription = (ServiceProfileTarget | EndpointProfileTarget) & {
  /** The path as the first stream asked for it, for logs. */
  readonly authority: string;
  readonly streams: number;
};

/**
 * The `GetProfile` subscriptions open now, counted by stream; the handler adds and removes, the
 * self-audit reads. A port the Service does not define is not here: its stream holds one empty
 * profile for good, whatever the cluster says (README "Service-profile flow").
 */
export class ProfileSubscriptions extends HeldSubscriptions<
  (ServiceProfileTarget | EndpointProfileTarget) & { readonly authority: string }
> {
  constructor() {
    super(profileSubscriptionId);
  }
}

function profileSubscriptionId(s: ServiceProfileTarget | EndpointProfileTarget): string {
  if (s.flow === "service") {
    return ["service", s.service.namespace, s.service.name, s.fqn, s.port, s.tokenNamespace].join(
      "\u0000",
    );
  }
  const t = s.target;
  return [
    "endpoint",
    t.ip,
    t.port,
    t.hostname ?? "",
    t.service?.namespace ?? "",
    t.service?.name ?? "",
  ].join("\u0000");
}
