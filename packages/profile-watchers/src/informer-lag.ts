import type { HistogramMetric, KubeObject, MetricsRegistry } from "@destination/k8s-discovery";

/** Buckets shared by every `*_informer_lag_seconds` histogram (watchers.md §10). */
const INFORMER_LAG_BUCKETS = [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000] as const;

/**
 * The latest `time` among the managedFields entries written by an `Update` operation, in epoch
 * milliseconds; undefined when there is none. `Apply` entries do not count (M-1).
 */
export function latestUpdateTime(obj: KubeObject): number | undefined {
  let latest: number | undefined;
  for (const entry of obj.metadata.managedFields ?? []) {
    if (entry.operation !== "Update" || entry.time == null) continue;
    const time = Date.parse(entry.time);
    if (Number.isNaN(time)) continue;
    if (latest === undefined || time > latest) latest = time;
  }
  return latest;
}

/**
 * How long an update took to reach this watcher (M-1): the time since the object's latest
 * `Update` write, observed only when that write is new, so a resync (`update(obj, obj)`) or a
 * change made only by server-side apply observes nothing.
 */
export class InformerLag {
  readonly #histogram: HistogramMetric;

  constructor(metrics: MetricsRegistry, name: string, help: string) {
    this.#histogram = metrics.histogram(name, help, [], INFORMER_LAG_BUCKETS);
  }

  observeUpdate(oldObj: KubeObject, newObj: KubeObject): void {
    const updated = latestUpdateTime(newObj);
    if (updated === undefined || updated === latestUpdateTime(oldObj)) return;
    // Clock skew can make this negative; it is observed as is, as upstream does.
    this.#histogram.observe({}, (Date.now() - updated) / 1000);
  }
}
