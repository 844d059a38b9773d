import type { EndpointSlicePort, ExternalWorkload, Service, ServicePort } from "@destination/core";

/**
 * The slice ports a workload gets for a Service: one per Service port whose target port the
 * workload declares with the same protocol, by name (a string `targetPort`) or by number. Unlike
 * a pod's, a workload's undeclared port is never used. A headless Service without ports gets
 * none. `skipped` names the Service ports the workload does not declare (upstream logs them).
 */
export function endpointPortsOf(
  service: Service,
  workload: ExternalWorkload,
): { ports: EndpointSlicePort[]; skipped: ServicePort[] } {
  const servicePorts = service.spec?.ports ?? [];
  const ports: EndpointSlicePort[] = [];
  const skipped: ServicePort[] = [];
  for (const servicePort of servicePorts) {
    const port = workloadPortFor(workload, servicePort);
    if (port === undefined) {
      skipped.push(servicePort);
      continue;
    }
    const slicePort: EndpointSlicePort = { port };
    if (servicePort.name) slicePort.name = servicePort.name;
    if (servicePort.protocol) slicePort.protocol = servicePort.protocol;
    ports.push(slicePort);
  }
  return { ports, skipped };
}

function workloadPortFor(workload: ExternalWorkload, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort;
  const protocol = servicePort.protocol ?? "";
  for (const declared of workload.spec?.ports ?? []) {
    if ((declared.protocol ?? "") !== protocol) continue;
    if (typeof target === "string" ? declared.name === target : declared.port === target) {
      return declared.port;
    }
  }
  return undefined;
}

/**
 * A key that is the same for two lists of the same ports in any order: slices are grouped by
 * their ports, and a slice whose ports no Service port maps to any more is deleted.
 */
export function portSetKey(ports: readonly EndpointSlicePort[] | null | undefined): string {
  return JSON.stringify(
    (ports ?? [])
      .map((p) => [p.name ?? null, p.protocol ?? null, p.port ?? null, p.appProtocol ?? null])
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
  );
}
