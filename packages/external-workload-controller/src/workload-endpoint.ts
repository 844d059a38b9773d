import type { Endpoint, ExternalWorkload, Service } from "@destination/core";
import { addressTypeOf, type SliceAddressType } from "./address-types.js";
import { TOPOLOGY_ZONE_LABEL } from "./upstream-constants.js";
import { isWorkloadReady } from "./workload-readiness.js";

/**
 * The endpoint of a workload in a slice of one address type: its IPs of that type (sorted, as
 * upstream's endpoint set sorts them), ready and serving as the workload's `Ready` condition,
 * never terminating (a workload has no such phase), a targetRef to it, its zone label, and its
 * name as hostname when the Service is headless and in the workload's namespace.
 */
export function workloadEndpoint(
  addressType: SliceAddressType,
  workload: ExternalWorkload,
  service: Service,
): Endpoint {
  const ready = isWorkloadReady(workload);
  const addresses = (workload.spec?.workloadIPs ?? [])
    .map((w) => w.ip)
    .filter((ip) => addressTypeOf(ip) === addressType)
    .sort();
  const { name, namespace = "", uid = "" } = workload.metadata;
  const endpoint: Endpoint = {
    addresses,
    conditions: { ready, serving: ready, terminating: false },
    targetRef: { kind: "ExternalWorkload", namespace, name, uid },
  };
  const zone = workload.metadata.labels?.[TOPOLOGY_ZONE_LABEL];
  if (zone !== undefined) endpoint.zone = zone;
  if (service.spec?.clusterIP === "None" && namespace === (service.metadata.namespace ?? "")) {
    endpoint.hostname = name;
  }
  return endpoint;
}
