import type { NamespacedName } from "@destination/core";
import type { EndpointsWatcher, FilterKey } from "@destination/endpoints-watcher";

import type { EndpointTranslator } from "@destination/translators";

/** One watch a Get stream holds: a translator subscribed to a service port of a watcher. */
export interface EndpointSource {
  readonly watcher: EndpointsWatcher;
  readonly service: NamespacedName;
  readonly port: number;
  readonly key: FilterKey;
  readonly translator: EndpointTranslator;
}

/** Subscribes; throws the watcher's `InvalidServiceError` for an ExternalName Service. */
export function subscribeSource(source: EndpointSource): void {
  source.watcher.subscribe(source.service, source.port, source.key, source.translator);
}

/**
 * With `withRemove`, the translator is first told to remove what it holds: a federated member
 * that leaves takes its addresses away from the stream.
 */
export function unsubscribeSource(source: EndpointSource, withRemove = false): void {
  source.watcher.unsubscribe(
    source.service,
    source.port,
    source.key,
    source.translator,
    withRemove,
  );
}
