import {
  type CounterMetric,
  type GaugeMetric,
  type LingerTimers,
  type Logger,
  type MetricLabels,
  type MetricsRegistry,
  type NamespacedName,
  namespacedNameKey,
  noopMetrics,
  type ProfileListener,
  type Publisher,
  PublisherRegistry,
  SerialQueue,
  type ServiceProfile,
  SubscriptionList,
  silentLogger,
} from "@destination/core";

import type { Cluster } from "@destination/k8s-discovery";

export interface ProfileWatcherOptions {
  logger?: Logger;
  metrics?: MetricsRegistry;
  /** How long an id without listeners is kept, in ms; 0 (the default) drops it at once. */
  lingerMs?: number;
  timers?: LingerTimers;
}

/** The current profile of one id and who listens to it; its series go with it. */
class ProfilePublisher implements Publisher {
  readonly labels: MetricLabels;
  profile: ServiceProfile | null;
  readonly subscriptions = new SubscriptionList<ProfileListener>();
  readonly #series: readonly (GaugeMetric | CounterMetric)[];

  constructor(
    id: NamespacedName,
    profile: ServiceProfile | null,
    series: readonly (GaugeMetric | CounterMetric)[],
  ) {
    this.labels = { namespace: id.namespace, profile: id.name };
    this.profile = profile;
    this.#series = series;
  }

  get listenerCount(): number {
    return this.subscriptions.size;
  }

  close(): void {
    for (const metric of this.#series) metric.remove(this.labels);
  }
}

const idOf = (profile: ServiceProfile): NamespacedName => ({
  namespace: profile.metadata.namespace ?? "",
  name: profile.metadata.name,
});

/**
 * ServiceProfiles by id as live values (see README "ServiceProfiles"). A subscriber hears the current
 * profile (or null) at once, then every add, update and resync of it, and null on delete.
 *
 * The id's namespace comes from the client (its context token), so an id is kept only while
 * it has listeners: its publisher and `profile_*` series go with the last one.
 */
export class ProfileWatcher {
  readonly #cluster: Pick<Cluster, "serviceProfiles">;
  readonly #logger: Logger;
  readonly #queue: SerialQueue;
  readonly #publishers: PublisherRegistry<ProfilePublisher>;
  readonly #subscribersGauge: GaugeMetric;
  readonly #updatesCounter: CounterMetric;
  readonly #removeHandler: () => void;

  constructor(cluster: Pick<Cluster, "serviceProfiles">, options: ProfileWatcherOptions = {}) {
    this.#cluster = cluster;
    this.#logger = options.logger ?? silentLogger;
    const metrics = options.metrics ?? noopMetrics;
    this.#queue = new SerialQueue({ logger: this.#logger });
    this.#publishers = new PublisherRegistry({
      queue: this.#queue,
      gauge: {
        name: "profile_publishers",
        help: "ServiceProfile ids with listeners: one publisher each.",
      },
      metrics,
      logger: this.#logger,
      lingerMs: options.lingerMs,
      timers: options.timers,
    });
    this.#subscribersGauge = metrics.gauge(
      "profile_subscribers",
      "Listeners of one ServiceProfile id.",
      ["namespace", "profile"],
    );
    this.#updatesCounter = metrics.counter(
      "profile_updates",
      "ServiceProfile adds, updates and deletes forwarded to the listeners of one id.",
      ["namespace", "profile"],
    );
    this.#removeHandler = cluster.serviceProfiles.addHandler({
      add: (profile) => this.#publish(profile, profile),
      update: (_oldProfile, newProfile) => this.#publish(newProfile, newProfile),
      delete: (profile) => this.#publish(profile, null),
    });
  }

  /**
   * Registers the listener and calls `update` with the current profile, or null. `id.name` is
   * the service FQDN `<svc>.<ns>.svc.<clusterDomain>` (the ServiceProfile's `metadata.name`);
   * `id.namespace` is where the ServiceProfile is looked for: the service's namespace, or the
   * client's for a primary lookup.
   */
  subscribe(id: NamespacedName, listener: ProfileListener): void {
    const publisher = this.#publishers.acquire(namespacedNameKey(id), () => this.#newPublisher(id));
    const subscription = publisher.subscriptions.add(listener);
    this.#subscribersGauge.set(publisher.labels, publisher.subscriptions.size);
    const profile = publisher.profile;
    this.#queue.deliver([subscription], (l) => l.update(profile), { ...publisher.labels });
  }

  /**
   * Removes one registration of the listener; it hears nothing more from this id. With the
   * last one gone the publisher and its `profile_*` series go too; a later subscriber reads
   * the cache, as the first one did.
   */
  unsubscribe(id: NamespacedName, listener: ProfileListener): void {
    const publisher = this.#publishers.get(namespacedNameKey(id));
    if (publisher === undefined) {
      // Upstream dereferences a missing publisher here and crashes; nothing to undo, so log only.
      this.#logger.error("cannot unsubscribe from an unknown profile", {
        namespace: id.namespace,
        profile: id.name,
      });
      return;
    }
    if (publisher.subscriptions.remove(listener) === undefined) {
      this.#logger.warn("unsubscribe of a listener that is not subscribed", {
        ...publisher.labels,
      });
      return;
    }
    this.#subscribersGauge.set(publisher.labels, publisher.subscriptions.size);
    this.#publishers.release(namespacedNameKey(id));
  }

  /** Stops listening to the cache; subscribers keep their last value and hear nothing more. */
  stop(): void {
    this.#removeHandler();
  }

  /**
   * Every add, update and resync is forwarded, with the cache's object; null on delete.
   * An id nobody listens to has no publisher, and the event is not kept.
   */
  #publish(object: ServiceProfile, profile: ServiceProfile | null): void {
    const publisher = this.#publishers.get(namespacedNameKey(idOf(object)));
    if (publisher === undefined) return;
    publisher.profile = profile;
    this.#updatesCounter.inc(publisher.labels);
    this.#queue.deliver(publisher.subscriptions, (l) => l.update(profile), {
      ...publisher.labels,
    });
  }

  /** A publisher for a first listener, from the cache. Both series start at zero. */
  #newPublisher(id: NamespacedName): ProfilePublisher {
    const publisher = new ProfilePublisher(id, this.#cached(id), [
      this.#subscribersGauge,
      this.#updatesCounter,
    ]);
    this.#subscribersGauge.set(publisher.labels, 0);
    this.#updatesCounter.inc(publisher.labels, 0);
    return publisher;
  }

  #cached(id: NamespacedName): ServiceProfile | null {
    try {
      return this.#cluster.serviceProfiles.get(id.namespace, id.name) ?? null;
    } catch (err) {
      this.#logger.error("cannot read ServiceProfile from the cache", {
        namespace: id.namespace,
        profile: id.name,
        error: String(err),
      });
      return null;
    }
  }
}
