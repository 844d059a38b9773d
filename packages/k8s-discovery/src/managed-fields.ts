import type { ManagedFieldsEntry } from "@destination/core";

/**
 * The latest `time` among `managedFields` entries with operation `Update`, in epoch milliseconds;
 * 0 when there is none. `Apply` entries do not count.
 */
export function latestUpdateTime(managedFields: readonly ManagedFieldsEntry[] | null | undefined) {
  let latest = 0;
  for (const entry of managedFields ?? []) {
    if (entry.operation !== "Update" || !entry.time) continue;
    const time = Date.parse(entry.time);
    if (Number.isFinite(time) && time > latest) latest = time;
  }
  return latest;
}

/**
 * What is kept of `managedFields` (about a third of a pod's JSON): the entry of the latest
 * `Update` time, which informer lag is measured from, as `{ operation, time }`; nothing (the
 * field left out) when there is no such entry, or the value is not a list.
 */
export function latestUpdateOnly(managedFields: unknown): ManagedFieldsEntry[] | undefined {
  const entries = (Array.isArray(managedFields) ? managedFields : []) as ManagedFieldsEntry[];
  const updated = latestUpdateTime(entries);
  const latest = entries.find(
    (e) => e?.operation === "Update" && e.time && Date.parse(e.time) === updated,
  );
  return latest === undefined ? undefined : [{ operation: "Update", time: latest.time ?? null }];
}
