import type { Container, EndpointSlice, ExternalWorkload, Pod, Service } from "@destination/core";
import { canonicalIp } from "@destination/core";
import { joinHostPort } from "@destination/go-compat";
import { objectKey } from "./cache.js";
import type { ClusterIndexes } from "./cluster.js";
import type { IndexDefinition, MemoryCache } from "./memory/memory-cache.js";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

const ip = (text: string) => canonicalIp(text) ?? text;

// The pod indexes run for every pod of every list and event: plain loops, nothing built that
// is not returned.
export const podIpIndex: IndexDefinition<Pod> = {
  name: "ip",
  keys(pod) {
    if (pod.spec?.hostNetwork) return [];
    const keys: string[] = [];
    for (const p of pod.status?.podIPs ?? []) if (p.ip) keys.push(ip(p.ip));
    if (keys.length === 0 && pod.status?.podIP) keys.push(ip(pod.status.podIP));
    return keys;
  },
};

export const podHostPortIndex: IndexDefinition<Pod> = {
  name: "hostIP",
  keys(pod) {
    const hostPorts: number[] = [];
    addHostPorts(pod.spec?.initContainers, hostPorts);
    addHostPorts(pod.spec?.containers, hostPorts);
    if (hostPorts.length === 0) return [];
    const hostIps = hostIpsOf(pod);
    const keys: string[] = [];
    for (const port of hostPorts) for (const h of hostIps) keys.push(joinHostPort(ip(h), port));
    return keys;
  },
};

function addHostPorts(containers: readonly Container[] | null | undefined, into: number[]): void {
  for (const c of containers ?? []) {
    for (const p of c.ports ?? []) if (p.hostPort) into.push(p.hostPort);
  }
}

function hostIpsOf(pod: Pod): string[] {
  const hostIps = (pod.status?.hostIPs ?? []).map((h) => h.ip).filter((x) => x);
  if (hostIps.length === 0 && pod.status?.hostIP) hostIps.push(pod.status.hostIP);
  return hostIps;
}

export const serviceClusterIpIndex: IndexDefinition<Service> = {
  name: "ip",
  keys(svc) {
    const ips = svc.spec?.clusterIPs?.length ? svc.spec.clusterIPs : [svc.spec?.clusterIP ?? ""];
    return ips.filter((x) => x).map(ip);
  },
};

export const sliceServiceIndex: IndexDefinition<EndpointSlice> = {
  name: "service",
  keys(slice) {
    const svc = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    return svc === undefined ? [] : [objectKey(slice.metadata.namespace, svc)];
  },
};

export const externalWorkloadIpIndex: IndexDefinition<ExternalWorkload> = {
  name: "externalWorkloadIP",
  keys(ew) {
    const keys: string[] = [];
    for (const w of ew.spec?.workloadIPs ?? []) {
      for (const p of ew.spec?.ports ?? []) keys.push(joinHostPort(ip(w.ip), p.port));
    }
    return keys;
  },
};

/** Index reads skip pods that are terminating or finished: their IP may already be reused. */
export function podIsLive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed";
}

/** The index reads of a cluster whose caches are MemoryCaches with the indexes above. */
export function memoryClusterIndexes(caches: {
  pods: MemoryCache<Pod>;
  services: MemoryCache<Service>;
  endpointSlices: MemoryCache<EndpointSlice>;
  externalWorkloads: MemoryCache<ExternalWorkload>;
}): ClusterIndexes {
  return {
    podsByIp: (address) => caches.pods.byIndex(podIpIndex.name, ip(address)).filter(podIsLive),
    podsByHostPort: (hostIp, port) =>
      caches.pods.byIndex(podHostPortIndex.name, joinHostPort(ip(hostIp), port)).filter(podIsLive),
    servicesByClusterIp: (address) =>
      caches.services.byIndex(serviceClusterIpIndex.name, ip(address)),
    endpointSlicesOfService: (namespace, service) =>
      caches.endpointSlices.byIndex(sliceServiceIndex.name, objectKey(namespace, service)),
    externalWorkloadsByIpPort: (address, port) =>
      caches.externalWorkloads.byIndex(
        externalWorkloadIpIndex.name,
        joinHostPort(ip(address), port),
      ),
  };
}
