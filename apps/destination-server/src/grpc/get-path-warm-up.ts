import { type Clock, type NamespacedName, nodeZoneOf, type Service } from "@destination/core";

import { EndpointsWatcher } from "@destination/endpoints-watcher";

import type { Cluster } from "@destination/k8s-discovery";

import type { Update } from "@destination/proto";

import {
  EndpointTranslation,
  EndpointTranslator,
  type EndpointTranslatorConfig,
} from "@destination/translators";

import { routeGet } from "../request/request-routes.js";
import { encodedUpdate } from "../streams/encoded-messages.js";

/**
 * Wall time a warm-up may take. It is spent before ready, so it is bounded by time as well as
 * by Services: a Service with thousands of endpoints costs more than one with ten.
 */
export const WARM_UP_BUDGET_MS = 100;

export interface GetPathWarmUpOptions {
  readonly enableEndpointSlices: boolean;
  readonly enableIPv6: boolean;
  readonly clusterDomain: string;
  readonly translatorConfig: EndpointTranslatorConfig;
  /** At most this many Services; 0 skips the warm-up. */
  readonly services: number;
  readonly budgetMs?: number;
  readonly clock: Pick<Clock, "now">;
}

/** What a warm-up did, for the start-up log. */
export interface GetPathWarmUp {
  readonly services: number;
  readonly ms: number;
}

/**
 * Runs what a first `Get` runs (routing, a publisher built from the caches, translation,
 * encoding) over real Services of the synced cluster, before the server reports ready
 * (README "Warm-up before ready").
 *
 * Everything it builds is its own and is dropped before it returns: a second endpoints watcher
 * without metrics or logs, reading the shared caches; a translation of its own; a sink that
 * encodes each Update and forgets it. The serving watcher, the metrics and the log are as they
 * were, and a Service is later served from the caches as if this had never run. What stays is
 * V8's: code that ran, and was optimised, on the same shapes a Get meets.
 */
export function warmGetPath(cluster: Cluster, options: GetPathWarmUpOptions): GetPathWarmUp {
  const { clock } = options;
  const startedAt = clock.now();
  const budgetMs = options.budgetMs ?? WARM_UP_BUDGET_MS;
  const targets = warmUpTargets(cluster.services.list(), options.services, options.clusterDomain);
  if (targets.length === 0) return { services: 0, ms: 0 };

  const watcher = new EndpointsWatcher(cluster, {
    enableEndpointSlices: options.enableEndpointSlices,
    enableIPv6: options.enableIPv6,
  });
  // As a proxy on a Node of the cluster would ask, so that the filtering by node and zone runs.
  const node = cluster.nodes.list()[0];
  const key = { hostname: "", nodeName: node?.metadata.name ?? "", enableEndpointFiltering: true };
  const translation = new EndpointTranslation(options.translatorConfig).forZone(
    node === undefined ? "" : nodeZoneOf(node),
  );
  const sink = {
    send(update: Update): boolean {
      encodedUpdate(update);
      return true;
    },
  };
  const subscribed: { service: NamespacedName; port: number; translator: EndpointTranslator }[] =
    [];
  try {
    for (const authority of targets) {
      if (clock.now() - startedAt >= budgetMs) break;
      const route = routeGet(authority, options.clusterDomain);
      const translator = new EndpointTranslator(translation, sink);
      watcher.subscribe(route.service, route.port, key, translator);
      subscribed.push({ service: route.service, port: route.port, translator });
    }
  } finally {
    for (const { service, port, translator } of subscribed) {
      watcher.unsubscribe(service, port, key, translator);
    }
    watcher.stop();
  }
  return { services: subscribed.length, ms: clock.now() - startedAt };
}

/**
 * Authorities of up to `count` Services a proxy could resolve by name (not ExternalName, with a
 * port), in the cache's order.
 */
function warmUpTargets(
  services: readonly Service[],
  count: number,
  clusterDomain: string,
): string[] {
  const authorities: string[] = [];
  for (let i = 0; i < services.length && authorities.length < count; i++) {
    const svc = services[i] as Service;
    const port = svc.spec?.ports?.[0]?.port;
    if (svc.spec?.type === "ExternalName" || port === undefined) continue;
    authorities.push(`${svc.metadata.name}.${svc.metadata.namespace}.svc.${clusterDomain}:${port}`);
  }
  return authorities;
}
