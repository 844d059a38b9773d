import type { FilterKey } from "@destination/endpoints-watcher";
import type { ServiceRef } from "../request/request-routes.js";
import { HeldSubscriptions } from "./held-subscriptions.js";

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
export class GetSubscriptions extends HeldSubscriptions<Omit<GetSubscription, "streams">> {
  constructor() {
    super(subscriptionId);
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
