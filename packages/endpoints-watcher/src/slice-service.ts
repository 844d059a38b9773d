import type { EndpointSlice } from "@destination/core";
import { SERVICE_NAME_LABEL } from "@destination/k8s-discovery";

/**
 * The Service a slice belongs to, or undefined for a slice that names none. The label
 * wins when present, even when empty if the slice has ownerReferences (upstream parity);
 * otherwise the first Service ownerReference with a name.
 */
export function sliceServiceName(slice: EndpointSlice): string | undefined {
  const refs = slice.metadata.ownerReferences ?? [];
  const label = slice.metadata.labels?.[SERVICE_NAME_LABEL];
  if (refs.length === 0 && !label) return undefined;
  if (label !== undefined) return label;
  return refs.find((r) => r?.kind === "Service" && r.name)?.name;
}
