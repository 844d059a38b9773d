import type { HistogramMetric, KubeObject } from "@destination/k8s-discovery";

/** M-1: when an object was last written by an `Update` (not `Apply`), in ms; 0 if unknown. */
export function latestUpdateTime(obj: KubeObject): number {
  let latest = 0;
  for (const field of obj.metadata.managedFields ?? []) {
    if (field?.operation !== "Update" || field.time == null) continue;
    const time = Date.parse(field.time);
    if (Number.isFinite(time) && time > latest) latest = time;
  }
  return latest;
}

/**
 * M-1: on an update event, how long the change took to reach this process. Resyncs carry the
 * same object twice and are never observed.
 */
export function observeInformerLag(
  histogram: HistogramMetric,
  oldObj: KubeObject,
  newObj: KubeObject,
  now: number = Date.now(),
): void {
  const updated = latestUpdateTime(newObj);
  if (updated === 0 || updated === latestUpdateTime(oldObj)) return;
  histogram.observe({}, (now - updated) / 1000);
}
