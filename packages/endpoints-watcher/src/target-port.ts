import type { EndpointSlice, EndpointSubset, Service } from "@destination/core";

/**
 * What a subscribed port maps to in Endpoints and slices: the service port's name (possibly
 * ""), or a port number when the Service does not declare the port (E-9).
 */
export type TargetPort = number | string;

/**
 * E-9. The Service's own `targetPort` is deliberately not read: the Endpoints and slice
 * controllers have already resolved it per pod and publish it under the service port's name.
 */
export function serviceTargetPort(service: Service | undefined, srcPort: number): TargetPort {
  const declared = service?.spec?.ports?.find((p) => p.port === srcPort);
  return declared === undefined ? srcPort : (declared.name ?? "");
}

/** E-11: the port a slice serves the target on, or 0 when it does not (no addresses then). */
export function slicePort(slice: EndpointSlice, target: TargetPort): number {
  if (slice.ports == null) return 0;
  if (typeof target === "number") return target;
  for (const p of slice.ports) {
    // A named match without a number is skipped rather than trusted (upstream would crash).
    if ((p.name ?? "") === target && typeof p.port === "number") return p.port;
  }
  return 0;
}

/** E-10: the port an Endpoints subset serves the target on, or 0 (the subset is skipped). */
export function subsetPort(subset: EndpointSubset, target: TargetPort): number {
  if (typeof target === "number") return target;
  return subset.ports?.find((p) => (p.name ?? "") === target)?.port ?? 0;
}
