import type { KubeObject } from "@destination/core";
import { type Cluster, clusterCache } from "./cluster.js";
import { type ClusterMetrics, INFORMER_LAG_METRICS } from "./cluster-metrics.js";
import { latestUpdateTime } from "./managed-fields.js";
import type { ResourceKind } from "./resource-kind.js";

/**
 * The lag to observe for an update event, or undefined when there is none to observe: the new
 * object has no `Update` time, or it is the old object's (a resync, or a change by `Apply`).
 */
export function informerLagSeconds(
  oldObj: KubeObject,
  newObj: KubeObject,
  nowMs: number,
): number | undefined {
  const updated = latestUpdateTime(newObj.metadata.managedFields);
  if (updated === 0 || updated === latestUpdateTime(oldObj.metadata.managedFields)) return;
  return (nowMs - updated) / 1000;
}

/**
 * Observes informer lag on every update of the lag-tracked caches. Upstream observes once per
 * watcher handler (twice for Services and Servers); this observes once per event.
 */
export function observeInformerLag(
  cluster: Cluster,
  metrics: ClusterMetrics,
  now: () => number = Date.now,
): void {
  for (const kind of Object.keys(INFORMER_LAG_METRICS) as ResourceKind[]) {
    clusterCache(cluster, kind).addHandler({
      update(oldObj, newObj) {
        const lag = informerLagSeconds(oldObj, newObj, now());
        if (lag !== undefined) metrics.observeLag(kind, lag);
      },
    });
  }
}
