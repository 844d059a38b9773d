import type { ExternalWorkload } from "@destination/core";

/** A workload is ready when one of its status conditions is `Ready` with status `True`. */
export function isWorkloadReady(workload: ExternalWorkload): boolean {
  return (workload.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}
