import type { ExternalWorkload } from "@destination/core";
import { isWorkloadReady } from "./workload-readiness.js";

/**
 * What a workload update may change, as upstream tells: `endpoints` when the endpoint it makes
 * may differ (deletion mark, readiness, IPs in order, ports by number with their names and
 * protocols), `labels` when the Services selecting it may differ. A change of anything else (an
 * annotation, say) is neither.
 */
export function workloadChange(
  old: ExternalWorkload,
  updated: ExternalWorkload,
): { endpoints: boolean; labels: boolean } {
  const labels = !sameLabels(old.metadata.labels, updated.metadata.labels);
  return { endpoints: endpointsMayDiffer(old, updated), labels };
}

function endpointsMayDiffer(old: ExternalWorkload, updated: ExternalWorkload): boolean {
  if ((old.metadata.deletionTimestamp ?? null) !== (updated.metadata.deletionTimestamp ?? null)) {
    return true;
  }
  if (isWorkloadReady(old) !== isWorkloadReady(updated)) return true;
  const oldIps = old.spec?.workloadIPs ?? [];
  const newIps = updated.spec?.workloadIPs ?? [];
  if (oldIps.length !== newIps.length || oldIps.some((w, i) => w.ip !== newIps[i]?.ip)) {
    return true;
  }
  const oldPorts = old.spec?.ports ?? [];
  const newPorts = updated.spec?.ports ?? [];
  if (oldPorts.length !== newPorts.length) return true;
  const byNumber = new Map(newPorts.map((p) => [p.port, p]));
  return oldPorts.some((p) => {
    const now = byNumber.get(p.port);
    return now === undefined || (now.name ?? "") !== (p.name ?? "") || now.protocol !== p.protocol;
  });
}

/** Go's `reflect.DeepEqual` of two label maps: nil and empty differ, as upstream compares them. */
function sameLabels(
  a: Readonly<Record<string, string>> | null | undefined,
  b: Readonly<Record<string, string>> | null | undefined,
): boolean {
  if (a == null || b == null) return (a == null) === (b == null);
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
  );
}

/**
 * The Services to sync after a workload update, from those selecting it before (`before`) and
 * after (`after`): when only its labels changed, the Services it joined or left; when its
 * endpoint may have changed too, every Service it was or is in; when only the endpoint may have
 * changed, the Services selecting it now. As upstream, a label change alone (a new zone label,
 * say) does not sync a Service the workload stays in.
 */
export function servicesToSyncOnUpdate(
  change: { endpoints: boolean; labels: boolean },
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): Set<string> {
  if (!change.endpoints && !change.labels) return new Set();
  if (!change.labels) return new Set(after);
  if (change.endpoints) return new Set([...before, ...after]);
  return new Set([
    ...[...after].filter((s) => !before.has(s)),
    ...[...before].filter((s) => !after.has(s)),
  ]);
}
