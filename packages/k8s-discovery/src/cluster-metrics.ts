import type { BoundCounter, MetricsRegistry } from "@destination/core";
import { type Cluster, clusterCache } from "./cluster.js";
import { RESOURCE_KINDS, type ResourceKind } from "./resource-kind.js";

/** The type of one event of a Kubernetes watch stream. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/**
 * What failed: a list, the watch request or stream, an `ERROR` event the server sent (other than
 * `410 Gone`, which is a relist), a line of the stream that is not a watch event, or an object
 * that failed validation and was skipped.
 */
export type WatchErrorReason = "list" | "watch" | "event" | "decode" | "invalid";

/**
 * The hook a backend reports its list/watch health through. `clusterMetrics(registry, name)`
 * backs it with a `MetricsRegistry`; cache sizes are not pushed but read at scrape time
 * (`registerCacheSizeMetrics`).
 */
export interface ClusterMetrics {
  /** A watch stream ended (server timeout, network, error) and the loop goes on. */
  watchRestarted(kind: ResourceKind): void;
  /** A full list after the initial one: the watch expired (`410 Gone`) or could not resume. */
  relisted(kind: ResourceKind): void;
  errored(kind: ResourceKind, reason: WatchErrorReason): void;
  eventReceived(kind: ResourceKind, type: WatchEventType): void;
  /** Informer lag of an update event, for the kinds in `INFORMER_LAG_METRICS`. */
  observeLag(kind: ResourceKind, seconds: number): void;
}

export const noopClusterMetrics: ClusterMetrics = {
  watchRestarted() {},
  relisted() {},
  errored() {},
  eventReceived() {},
  observeLag() {},
};

/** A full hook from a partial one, so a caller wires only what it exports. */
export function withDefaultMetrics(metrics: Partial<ClusterMetrics> | undefined): ClusterMetrics {
  return { ...noopClusterMetrics, ...metrics };
}

/** Upstream's `<kind>_cache_size` gauge names, each with a constant `cluster` label. */
export const CACHE_SIZE_METRICS = Object.fromEntries(
  Object.values(RESOURCE_KINDS).map((info) => [info.kind, `${info.metricName}_cache_size`]),
) as Record<ResourceKind, string>;

/** Upstream's informer-lag histograms; other kinds have none. */
export const INFORMER_LAG_METRICS: Partial<Record<ResourceKind, string>> = {
  Endpoints: "endpoints_informer_lag_seconds",
  EndpointSlice: "endpointslices_informer_lag_seconds",
  Service: "services_informer_lag_seconds",
  Server: "servers_informer_lag_seconds",
  Pod: "pods_informer_lag_seconds",
  ExternalWorkload: "externalworkload_informer_lag_seconds",
  ServiceProfile: "serviceprofiles_informer_lag_seconds",
};

/** Buckets of every informer-lag histogram, in seconds. */
export const INFORMER_LAG_BUCKETS: readonly number[] = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000];

/**
 * Names for the counters of `ClusterMetrics`. Upstream has no such counters (client-go keeps its
 * own), so these are this project's; all carry `cluster` and `kind` labels, errors also
 * `reason`, events also `type`.
 */
export const CLUSTER_METRIC_NAMES = {
  watchRestarts: "k8s_watch_restarts_total",
  relists: "k8s_relists_total",
  errors: "k8s_watch_errors_total",
  events: "k8s_watch_events_total",
} as const;

/** `ClusterMetrics` recorded in a registry, labelled with the cluster's name. */
export function clusterMetrics(registry: MetricsRegistry, clusterName: string): ClusterMetrics {
  const base = ["cluster", "kind"] as const;
  const restarts = registry.counter(
    CLUSTER_METRIC_NAMES.watchRestarts,
    "Kubernetes watches that ended and were resumed",
    base,
  );
  const relists = registry.counter(
    CLUSTER_METRIC_NAMES.relists,
    "Kubernetes lists after the initial one (expired watches)",
    base,
  );
  const errors = registry.counter(
    CLUSTER_METRIC_NAMES.errors,
    "Failed Kubernetes lists, watches and watch events",
    [...base, "reason"],
  );
  const events = registry.counter(CLUSTER_METRIC_NAMES.events, "Kubernetes watch events received", [
    ...base,
    "type",
  ]);
  const lags = new Map(
    Object.entries(INFORMER_LAG_METRICS).map(([kind, name]) => [
      kind,
      registry.histogram(
        name,
        "Delay between an object update and its arrival",
        [],
        INFORMER_LAG_BUCKETS,
      ),
    ]),
  );
  const labels = (kind: ResourceKind) => ({ cluster: clusterName, kind });
  // Every watch event counts: its series is bound on first use, so counting is an addition.
  const eventSeries = new Map<ResourceKind, Partial<Record<WatchEventType, BoundCounter>>>();
  return {
    watchRestarted: (kind) => restarts.inc(labels(kind)),
    relisted: (kind) => relists.inc(labels(kind)),
    errored: (kind, reason) => errors.inc({ ...labels(kind), reason }),
    eventReceived: (kind, type) => {
      let byType = eventSeries.get(kind);
      if (byType === undefined) {
        byType = {};
        eventSeries.set(kind, byType);
      }
      let series = byType[type];
      if (series === undefined) {
        series = events.bind({ ...labels(kind), type });
        byType[type] = series;
      }
      series.inc();
    },
    observeLag: (kind, seconds) => lags.get(kind)?.observe({}, seconds),
  };
}

/**
 * Registers the `<kind>_cache_size{cluster}` gauges, computed at scrape time
 * from the clusters `clusters()` returns then: the local one, and remote ones while they are
 * linked. Each cluster reports the kinds it serves (an Endpoints gauge only in Endpoints mode).
 */
export function registerCacheSizeMetrics(
  registry: MetricsRegistry,
  clusters: () => readonly Cluster[],
): void {
  for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
    registry.collectedGauge(
      CACHE_SIZE_METRICS[kind],
      `Number of items in the client-go ${RESOURCE_KINDS[kind].metricName} cache`,
      ["cluster"],
      () =>
        clusters()
          .filter((cluster) => cluster.servedKinds.has(kind))
          .map((cluster) => ({
            labels: { cluster: cluster.name },
            value: clusterCache(cluster, kind).size,
          })),
    );
  }
}
