import type { ObjectReference, Pod } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";
import { WorkloadLookupError } from "./workload-lookup-error.js";

/**
 * The pod behind `<hostname>.<service>` — the first endpoint of the service whose hostname
 * matches. Slice mode scans every endpoint of the label-owned slices whatever its conditions;
 * Endpoints mode only the ready addresses. A match without a Pod targetRef is NOT_FOUND (upstream
 * crashes there); a Pod targetRef missing from the cache is the cache's own not-found error.
 */
export function podByHostname(
  cluster: Cluster,
  hostname: string,
  service: { namespace: string; name: string },
  enableEndpointSlices: boolean,
): Pod {
  const { namespace, name } = service;
  let ref: ObjectReference | null | undefined;
  let matched = false;
  let notFound: string;
  if (enableEndpointSlices) {
    notFound = `no pod found in EndpointSlices of Service ${namespace}/${name} for hostname ${hostname}`;
    search: for (const slice of cluster.indexes.endpointSlicesOfService(namespace, name)) {
      for (const endpoint of slice.endpoints ?? []) {
        if (endpoint.hostname === hostname) {
          matched = true;
          ref = endpoint.targetRef;
          break search;
        }
      }
    }
  } else {
    notFound = `no pod found in Endpoints ${namespace}/${name} for hostname ${hostname}`;
    const endpoints = cluster.endpoints.get(namespace, name);
    if (endpoints === undefined) {
      throw new WorkloadLookupError("UNKNOWN", `endpoints "${name}" not found`);
    }
    search: for (const subset of endpoints.subsets ?? []) {
      for (const address of subset.addresses ?? []) {
        if (address.hostname === hostname) {
          matched = true;
          ref = address.targetRef;
          break search;
        }
      }
    }
  }
  if (!matched || ref?.kind !== "Pod") throw new WorkloadLookupError("NOT_FOUND", notFound);
  const podName = ref.name ?? "";
  const pod = cluster.pods.get(ref.namespace ?? namespace, podName);
  if (pod === undefined) throw new WorkloadLookupError("UNKNOWN", `pod "${podName}" not found`);
  return pod;
}
