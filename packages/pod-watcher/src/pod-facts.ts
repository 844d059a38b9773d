import { type ContainerPort, canonicalIp, type Pod } from "@destination/core";

// Small readings of a pod that the watcher's rules are written in.

/**
 * A pod is attached only while its phase is Running. Readiness is not consulted, so clustered
 * StatefulSet pods can reach each other before they are ready.
 */
export function podIsRunning(pod: Pod): boolean {
  return pod.status?.phase === "Running";
}

/** The same pod object over time: same uid, or same name when a backend keeps no uid. */
export function samePod(a: Pod, b: Pod): boolean {
  if (a.metadata.uid && b.metadata.uid) return a.metadata.uid === b.metadata.uid;
  return a.metadata.namespace === b.metadata.namespace && a.metadata.name === b.metadata.name;
}

/** Ports of init and regular containers alike (native sidecars declare ports too). */
export function containerPorts(pod: Pod): ContainerPort[] {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return containers.flatMap((c) => c.ports ?? []);
}

/** `status.podIPs`, or `status.podIP` when the list is empty; canonical text. */
export function podIps(pod: Pod): string[] {
  const listed = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip);
  if (listed.length === 0 && pod.status?.podIP) listed.push(pod.status.podIP);
  return listed.map(canonical);
}

/** `status.hostIPs`, or `status.hostIP` when the list is empty; canonical text. */
export function hostIps(pod: Pod): string[] {
  const listed = (pod.status?.hostIPs ?? []).map((h) => h.ip).filter((ip) => ip);
  if (listed.length === 0 && pod.status?.hostIP) listed.push(pod.status.hostIP);
  return listed.map(canonical);
}

/** Canonical IP text (what publishers are keyed by); text that is not an IP stays as it is. */
export function canonical(ip: string): string {
  return canonicalIp(ip) ?? ip;
}
