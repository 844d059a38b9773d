import type { Pod } from "@destination/k8s-discovery";
import { containerPorts, hostIps, podIps } from "./pod-facts.js";
import type { PublisherRegistry } from "./publisher-registry.js";
import type { WorkloadPublisher } from "./workload-publisher.js";

/**
 * The publishers a pod event reaches (W-4b with the Q16 fix), each once:
 * - on the pod network, every subscribed port of each pod IP, declared or not, so a
 *   subscription on an undeclared port still sees the pod stop, go and come back;
 * - through host ports, only `hostIP:hostPort` pairs the pod declares (init containers too).
 * A host-network pod's "pod IP" is its node's IP, shared with every other workload on the node,
 * so for it only declared container ports count, as upstream routes them.
 */
export function publishersReachedByPod(
  registry: PublisherRegistry,
  pod: Pod,
): Set<WorkloadPublisher> {
  const reached = new Set<WorkloadPublisher>();
  const add = (p: WorkloadPublisher | undefined) => p !== undefined && reached.add(p);
  const ports = containerPorts(pod);
  for (const ip of podIps(pod)) {
    if (pod.spec?.hostNetwork) {
      for (const p of ports) if (p.containerPort) add(registry.get(ip, p.containerPort));
    } else {
      for (const publisher of registry.onIp(ip)) add(publisher);
    }
  }
  for (const ip of hostIps(pod)) {
    for (const p of ports) if (p.hostPort) add(registry.get(ip, p.hostPort));
  }
  return reached;
}
