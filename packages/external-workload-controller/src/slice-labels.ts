import type { EndpointSlice, Service } from "@destination/core";
import {
  HEADLESS_SERVICE_LABEL,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
} from "./upstream-constants.js";

const RESERVED = new Set([SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_SERVICE_LABEL]);

/**
 * A slice's labels: the Service's own, minus the reserved ones, plus the Service name, the
 * managed-by value and, for a headless Service, the headless label. `changed` is upstream's test
 * for a rewrite: a Service label the slice lacks or holds with another value. A label the slice
 * has and the Service dropped does not count by itself; it goes with the next write.
 */
export function sliceLabels(
  slice: Pick<EndpointSlice, "metadata"> | undefined,
  service: Service,
  managedBy: string,
): { labels: Record<string, string>; changed: boolean } {
  const current = slice?.metadata.labels ?? {};
  const labels: Record<string, string> = {};
  let changed = false;
  for (const [key, value] of Object.entries(service.metadata.labels ?? {})) {
    if (RESERVED.has(key)) continue;
    labels[key] = value;
    if (!Object.hasOwn(current, key) || current[key] !== value) changed = true;
  }
  if (service.spec?.clusterIP === "None") labels[HEADLESS_SERVICE_LABEL] = "";
  labels[SERVICE_NAME_LABEL] = service.metadata.name;
  labels[MANAGED_BY_LABEL] = managedBy;
  return { labels, changed };
}
