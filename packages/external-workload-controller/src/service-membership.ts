import type { ExternalWorkload, Service } from "@destination/core";

/**
 * True when the Service's selector picks the workload: every selector label present with its
 * value. A Service without a selector picks nothing (its endpoints are someone else's job).
 */
export function serviceSelects(service: Service, workload: ExternalWorkload): boolean {
  const selector = service.spec?.selector;
  if (selector == null) return false;
  if ((service.metadata.namespace ?? "") !== (workload.metadata.namespace ?? "")) return false;
  const labels = workload.metadata.labels ?? {};
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** `namespace/name`, the queue's key of a Service. */
export function serviceKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** The keys of the Services of the workload's namespace that select it. */
export function servicesSelecting(
  workload: ExternalWorkload,
  services: Iterable<Service>,
): Set<string> {
  const keys = new Set<string>();
  for (const service of services) {
    if (serviceSelects(service, workload)) {
      keys.add(serviceKey(service.metadata.namespace ?? "", service.metadata.name));
    }
  }
  return keys;
}
