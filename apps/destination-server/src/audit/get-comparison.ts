import { InvalidServiceError } from "@destination/core";
import type { EndpointsWatcher } from "@destination/endpoints-watcher";
import {
  type AnnouncedEndpoint,
  compareEndpointViews,
  type EndpointDifference,
  EndpointView,
  toJson,
  type Update,
  WeightedAddrSchema,
} from "@destination/proto";
import { EndpointTranslator, type ZonedEndpointTranslation } from "@destination/translators";
import type { GetSubscription } from "./held-subscriptions.js";

/** How one subscription's streams differ from the fresh answer, at the level a proxy sees. */
export interface GetDivergence {
  readonly subscription: GetSubscription;
  /**
   * Whose view was compared: `stream`, what one of the subscription's streams was sent (its
   * witness); `watcher`, the watcher's current set, when no open stream folds what it is sent.
   */
  readonly heldBy: HeldBy;
  readonly missing: readonly EndpointDifference[];
  readonly extra: readonly EndpointDifference[];
  readonly changed: readonly EndpointDifference[];
}

export type HeldBy = "stream" | "watcher";

/** A watcher and the translation a subscription's zone gets on it. */
export interface GetSide {
  readonly watcher: EndpointsWatcher;
  translationFor(subscription: GetSubscription): ZonedEndpointTranslation;
}

/**
 * What a proxy holds after every message of a subscription's streams: the watcher's current
 * set for that service port and filter key (a new listener of a group is sent exactly that, as
 * one `add`), translated as the streams' translators translate it and folded into the proxy's
 * view. The listener leaves at once; the group and its streams never hear of it.
 */
export function heldView(side: GetSide, subscription: GetSubscription): EndpointView {
  const view = new EndpointView();
  const sink = {
    send(update: Update): boolean {
      view.apply(update);
      return true;
    },
  };
  const translator = new EndpointTranslator(side.translationFor(subscription), sink);
  const { service, port, key } = subscription;
  try {
    side.watcher.subscribe(service, port, key, translator);
  } catch (err) {
    // An ExternalName Service serves no endpoints: the view stays empty.
    if (err instanceof InvalidServiceError) return view;
    throw err;
  }
  side.watcher.unsubscribe(service, port, key, translator);
  return view;
}

/** The differences between what the streams hold and what they should hold; none is `[]`s. */
export function compareViews(
  subscription: GetSubscription,
  held: EndpointView,
  expected: EndpointView,
  heldBy: HeldBy,
): GetDivergence {
  return { subscription, heldBy, ...compareEndpointViews(expected, held) };
}

export function isDivergent(d: GetDivergence): boolean {
  return d.missing.length + d.extra.length + d.changed.length > 0;
}

/** A divergence as log fields: the authority, and each endpoint with what differs. */
export function describeDivergence(d: GetDivergence, limit = 20): Record<string, unknown> {
  const { subscription: s } = d;
  const endpoint = (e: AnnouncedEndpoint | undefined) =>
    e === undefined
      ? undefined
      : { addr: toJson(WeightedAddrSchema, e.addr), setLabels: e.setLabels };
  return {
    authority: s.authority,
    service: `${s.service.namespace}/${s.service.name}`,
    port: s.port,
    ...(s.key.hostname === "" ? {} : { hostname: s.key.hostname }),
    ...(s.key.nodeName === "" ? {} : { nodeName: s.key.nodeName }),
    zone: s.zone,
    streams: s.streams,
    heldBy: d.heldBy,
    missing: d.missing
      .slice(0, limit)
      .map((e) => ({ address: e.address, expected: endpoint(e.expected) })),
    extra: d.extra.slice(0, limit).map((e) => ({ address: e.address, held: endpoint(e.held) })),
    changed: d.changed.slice(0, limit).map((e) => ({
      address: e.address,
      fields: e.fields,
      held: endpoint(e.held),
      expected: endpoint(e.expected),
    })),
  };
}
