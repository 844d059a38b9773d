import type { EndpointSlice, Service } from "@destination/core";
import { type KubeApi, KubeApiError } from "@destination/k8s-discovery";
import type { SlicePlan } from "./slice-plan.js";
import type { SliceTracker } from "./slice-tracker.js";

/** Thrown before a write once this replica no longer holds the Lease. */
export class LeaseLostError extends Error {
  override readonly name = "LeaseLostError";
}

/**
 * Carries out a plan against the API server, as upstream does: creates (unless the Service is
 * being deleted; a namespace that is terminating drops the whole sync), then updates, then
 * deletes, each recorded in the tracker. `mayWrite` is asked before every write, so a replica
 * that lost the Lease stops in the middle of a sync.
 */
export async function writeSlicePlan(
  api: KubeApi,
  service: Service,
  plan: SlicePlan,
  tracker: SliceTracker,
  mayWrite: () => boolean,
): Promise<void> {
  const namespace = service.metadata.namespace ?? "";
  const collection = `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices`;
  const guard = () => {
    if (!mayWrite()) throw new LeaseLostError("the Lease was lost; not writing");
  };
  if (!service.metadata.deletionTimestamp) {
    for (const slice of plan.create) {
      guard();
      try {
        const created = await api.json<EndpointSlice>({
          method: "POST",
          path: collection,
          body: slice,
        });
        tracker.update(created);
      } catch (err) {
        if (err instanceof KubeApiError && err.status.causes?.includes("NamespaceTerminating")) {
          return;
        }
        throw err;
      }
    }
  }
  for (const slice of plan.update) {
    guard();
    const updated = await api.json<EndpointSlice>({
      method: "PUT",
      path: `${collection}/${encodeURIComponent(slice.metadata.name)}`,
      body: slice,
    });
    tracker.update(updated);
  }
  for (const slice of plan.delete) {
    guard();
    await api.json<unknown>({
      method: "DELETE",
      path: `${collection}/${encodeURIComponent(slice.metadata.name)}`,
    });
    tracker.expectDeletion(slice);
  }
}
