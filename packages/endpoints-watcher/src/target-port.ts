import type { EndpointSlice, EndpointSubset, Service } from "@destination/core";

/**
 * What a subscribed port maps to in Endpoints and slices: the service port's name (possibly
 * ""), or a port number when the Service does not declare the port.
 */
export type TargetPort = number | string;

/**
 * The subscribed port's target: the declared service port's name, else the number as asked.
 * The Service's own `targetPort` is deliberately not read: the Endpoints and slice
 * controllers have already resolved it per pod and publish it under the service port's name.
 */
export function serviceTargetPort(service: Service | undefined, srcPort: number): TargetPort {
  const declared = service?.spec?.ports?.find((p) => p.port === srcPort);
  return declared === undefined ? srcPort : (declared.name ?? "");
}

/**
 * The port a slice serves the target on, or 0 when it does not (no addresses then): a number
 * passes through when the slice has ports at all; a name matches the first port of that name.
 */
export function slicePort(slice: EndpointSlice, target: TargetPort): number {
  if (slice.ports == null) return 0;
  if (typeof target === "number") return target;
  for (const p of slice.ports) {
    // A named match without a number is skipped rather than trusted (upstream would crash).
    if ((p.name ?? "") === target && typeof p.port === "number") return p.port;
  }
  return 0;
}

/**
 * The port an Endpoints subset serves the target on, or 0 (the subset is skipped): a number
 * passes through; a name matches the first port of that name.
 */
export function subsetPort(subset: EndpointSubset, target: TargetPort): number {
  if (typeof target === "number") return target;
  return subset.ports?.find((p) => (p.name ?? "") === target)?.port ?? 0;
}
