import {
  type Cluster,
  type CounterMetric,
  type GaugeMetric,
  type Logger,
  type MetricLabels,
  type MetricsRegistry,
  noopMetrics,
  type ProfileListener,
  type ServiceProfile,
  silentLogger,
} from "@destination/k8s-discovery";
import { NotificationQueue, newSubscription, type Subscription } from "./notification-queue.js";

/**
 * A ServiceProfile by name. `name` is the service FQDN `<svc>.<ns>.svc.<clusterDomain>` (the
 * ServiceProfile's `metadata.name`); `namespace` is where the ServiceProfile is looked for: the
 * service's namespace, or the client's for a primary lookup.
 */
export interface ProfileId {
  readonly namespace: string;
  readonly name: string;
}

export interface ProfileWatcherOptions {
  logger?: Logger;
  metrics?: MetricsRegistry;
}

/** The current profile of one id and who listens to it. */
interface ProfilePublisher {
  readonly labels: MetricLabels;
  profile: ServiceProfile | null;
  readonly subscriptions: Subscription<ProfileListener>[];
}

const keyOfId = (id: ProfileId) => `${id.namespace}/${id.name}`;

const idOf = (profile: ServiceProfile): ProfileId => ({
  namespace: profile.metadata.namespace ?? "",
  name: profile.metadata.name,
});

/**
 * ServiceProfiles by id as live values (watchers.md §6.1). A subscriber hears the current
 * profile (or null) at once, then every add, update and resync of it, and null on delete.
 */
export class ProfileWatcher {
  readonly #cluster: Pick<Cluster, "serviceProfiles">;
  readonly #logger: Logger;
  readonly #publishers = new Map<string, ProfilePublisher>();
  readonly #notifications: NotificationQueue;
  readonly #subscribersGauge: GaugeMetric;
  readonly #updatesCounter: CounterMetric;
  readonly #removeHandler: () => void;

  constructor(cluster: Pick<Cluster, "serviceProfiles">, options: ProfileWatcherOptions = {}) {
    this.#cluster = cluster;
    this.#logger = options.logger ?? silentLogger;
    this.#notifications = new NotificationQueue(this.#logger);
    const metrics = options.metrics ?? noopMetrics;
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
      add: (profile) => this.#publish(idOf(profile), profile),
      update: (_oldProfile, newProfile) => this.#publish(idOf(newProfile), newProfile),
      delete: (profile) => {
        const publisher = this.#publishers.get(keyOfId(idOf(profile)));
        if (publisher !== undefined) this.#set(publisher, null);
      },
    });
  }

  /** P-1: registers the listener and calls `update` with the current profile, or null. */
  subscribe(id: ProfileId, listener: ProfileListener): void {
    const publisher = this.#publisher(id);
    const subscription = newSubscription(listener);
    publisher.subscriptions.push(subscription);
    this.#subscribersGauge.set(publisher.labels, publisher.subscriptions.length);
    const profile = publisher.profile;
    this.#notifications.notify([subscription], (l) => l.update(profile), { ...publisher.labels });
  }

  /**
   * Removes one registration of the listener; it hears nothing more from this id. The
   * publisher and its metric series stay (P-4).
   */
  unsubscribe(id: ProfileId, listener: ProfileListener): void {
    const publisher = this.#publishers.get(keyOfId(id));
    if (publisher === undefined) {
      // Upstream dereferences a missing publisher here (P-4 quirk); nothing to undo, so log only.
      this.#logger.error("cannot unsubscribe from an unknown profile", {
        namespace: id.namespace,
        profile: id.name,
      });
      return;
    }
    const index = publisher.subscriptions.findIndex((s) => s.listener === listener);
    if (index < 0) {
      this.#logger.warn("unsubscribe of a listener that is not subscribed", {
        ...publisher.labels,
      });
      return;
    }
    const [subscription] = publisher.subscriptions.splice(index, 1);
    if (subscription !== undefined) subscription.active = false;
    this.#subscribersGauge.set(publisher.labels, publisher.subscriptions.length);
  }

  /** Stops listening to the cache; subscribers keep their last value and hear nothing more. */
  stop(): void {
    this.#removeHandler();
  }

  /** P-2: every add, update and resync is forwarded, with the cache's object. */
  #publish(id: ProfileId, profile: ServiceProfile): void {
    this.#set(this.#publisher(id, profile), profile);
  }

  #set(publisher: ProfilePublisher, profile: ServiceProfile | null): void {
    publisher.profile = profile;
    this.#updatesCounter.inc(publisher.labels);
    this.#notifications.notify(publisher.subscriptions, (l) => l.update(profile), {
      ...publisher.labels,
    });
  }

  /**
   * Gets or creates the publisher of an id (P-4: never deleted). A new one starts from `initial`
   * when an event brings the object, else from the cache.
   */
  #publisher(id: ProfileId, initial?: ServiceProfile): ProfilePublisher {
    const key = keyOfId(id);
    const existing = this.#publishers.get(key);
    if (existing !== undefined) return existing;
    const publisher: ProfilePublisher = {
      labels: { namespace: id.namespace, profile: id.name },
      profile: initial ?? this.#cached(id),
      subscriptions: [],
    };
    this.#publishers.set(key, publisher);
    // Both series exist from the publisher's creation, at zero, as a scrape upstream shows them.
    this.#subscribersGauge.set(publisher.labels, 0);
    this.#updatesCounter.inc(publisher.labels, 0);
    return publisher;
  }

  #cached(id: ProfileId): ServiceProfile | null {
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
