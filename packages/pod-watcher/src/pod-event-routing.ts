import type { Pod, PublisherRegistry } from "@destination/core";
import { containerPorts, hostIps, podIps } from "./pod-facts.js";
import { publisherKey, type WorkloadPublisher } from "./workload-publisher.js";

/**
 * The publishers a pod event reaches, each once (see README "Which subscriptions a pod event
 * reaches"):
 * - on the pod network, every subscribed port of each pod IP, declared or not, so a
 *   subscription on an undeclared port still sees the pod stop, go and come back;
 * - through host ports, only `hostIP:hostPort` pairs the pod declares (init containers too).
 * A host-network pod's "pod IP" is its node's IP, shared with every other workload on the node,
 * so for it only declared container ports count, as upstream routes them.
 */
export function publishersReachedByPod(
  publishers: PublisherRegistry<WorkloadPublisher>,
  pod: Pod,
): Set<WorkloadPublisher> {
  const reached = new Set<WorkloadPublisher>();
  const add = (p: WorkloadPublisher | undefined) => p !== undefined && reached.add(p);
  const get = (ip: string, port: number) => publishers.get(publisherKey(ip, port));
  const ports = containerPorts(pod);
  for (const ip of podIps(pod)) {
    if (pod.spec?.hostNetwork) {
      for (const p of ports) if (p.containerPort) add(get(ip, p.containerPort));
    } else {
      for (const publisher of publishers.inGroup(ip)) add(publisher);
    }
  }
  for (const ip of hostIps(pod)) {
    for (const p of ports) if (p.hostPort) add(get(ip, p.hostPort));
  }
  return reached;
}
