import { InvalidServiceError } from "@destination/core";
import { WorkloadLookupError, type WorkloadWatcher } from "@destination/pod-watcher";
import type { OpaquePortsWatcher, ProfileWatcher } from "@destination/profile-watchers";
import {
  type DestinationProfile,
  DestinationProfileSchema,
  differingFields,
  equals,
  toJson,
} from "@destination/proto";
import {
  createServiceProfileStream,
  EndpointProfileTranslator,
  type EndpointTranslatorConfig,
} from "@destination/translators";
import type { ProfileSubscription } from "./held-subscriptions.js";

/** The watchers a `GetProfile` answer is computed from, live or fresh. */
export interface ProfileSide {
  readonly profiles: ProfileWatcher;
  readonly opaquePorts: OpaquePortsWatcher;
  readonly workloads: WorkloadWatcher;
  readonly translatorConfig: EndpointTranslatorConfig;
}

/** One subscription whose profile differs from the fresh answer. */
export interface ProfileDivergence {
  readonly subscription: ProfileSubscription;
  /** The profile the streams hold (undefined: none could be computed, e.g. the pod is gone). */
  readonly held: DestinationProfile | undefined;
  readonly expected: DestinationProfile | undefined;
  /** The top-level fields that differ: `opaqueProtocol`, `endpoint`, `routes`, ... */
  readonly fields: readonly string[];
}

/**
 * The profile a new stream of this subscription is sent first on `side`: the very pipeline the
 * handler wires (service-profile stream or endpoint-profile translator), with a sink that keeps
 * the last message. Every watcher tells a new listener its current value before returning, so
 * that message is what the streams hold. The listeners leave at once.
 */
export async function heldProfile(
  side: ProfileSide,
  subscription: ProfileSubscription,
): Promise<DestinationProfile | undefined> {
  let last: DestinationProfile | undefined;
  const sink = {
    send(profile: DestinationProfile): boolean {
      last = profile;
      return true;
    },
  };
  if (subscription.flow === "service") {
    const { service, fqn, port, tokenNamespace } = subscription;
    const stream = createServiceProfileStream({ fqn, service, port, tokenNamespace, sink });
    try {
      side.opaquePorts.subscribe(service, stream.opaquePortsListener);
    } catch (err) {
      if (err instanceof InvalidServiceError) return undefined;
      throw err;
    }
    for (const { id, listener } of stream.profileSubscriptions)
      side.profiles.subscribe(id, listener);
    for (const { id, listener } of stream.profileSubscriptions) {
      side.profiles.unsubscribe(id, listener);
    }
    side.opaquePorts.unsubscribe(service, stream.opaquePortsListener);
    return last;
  }
  const translator = new EndpointProfileTranslator(side.translatorConfig, sink);
  const { target } = subscription;
  let ip: string;
  try {
    ip = await side.workloads.subscribe(target, translator);
  } catch (err) {
    if (err instanceof WorkloadLookupError) return undefined;
    throw err;
  }
  side.workloads.unsubscribe(ip, target.port, translator);
  return last;
}

/** Compares the profiles a subscription gets on both sides; undefined when they agree. */
export async function compareProfile(
  subscription: ProfileSubscription,
  live: ProfileSide,
  fresh: ProfileSide,
): Promise<ProfileDivergence | undefined> {
  const held = await heldProfile(live, subscription);
  const expected = await heldProfile(fresh, subscription);
  if (held === undefined && expected === undefined) return undefined;
  if (
    held !== undefined &&
    expected !== undefined &&
    equals(DestinationProfileSchema, held, expected)
  ) {
    return undefined;
  }
  return { subscription, held, expected, fields: profileFields(held, expected) };
}

/** The fields that differ; `profile` when one side has none. */
function profileFields(
  a: DestinationProfile | undefined,
  b: DestinationProfile | undefined,
): string[] {
  if (a === undefined || b === undefined) return ["profile"];
  return differingFields(DestinationProfileSchema, a, b);
}

/** A profile divergence as log fields. */
export function describeProfileDivergence(d: ProfileDivergence): Record<string, unknown> {
  const s = d.subscription;
  const json = (p: DestinationProfile | undefined) =>
    p === undefined ? null : toJson(DestinationProfileSchema, p);
  return {
    authority: s.authority,
    flow: s.flow,
    ...(s.flow === "service"
      ? { service: `${s.service.namespace}/${s.service.name}`, port: s.port }
      : { target: `${s.target.ip}:${s.target.port}`, hostname: s.target.hostname ?? "" }),
    streams: s.streams,
    fields: d.fields,
    held: json(d.held),
    expected: json(d.expected),
  };
}
