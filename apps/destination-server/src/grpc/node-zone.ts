import type { Cluster } from "@destination/k8s-discovery";

const ZONE_LABEL = "topology.kubernetes.io/zone";

/** The zone of the caller's node (api.md §3.3), "" when the node or its label is unknown. */
export function nodeZone(cluster: Cluster, nodeName: string): string {
  if (nodeName === "") return "";
  return cluster.nodes.get("", nodeName)?.metadata.labels?.[ZONE_LABEL] ?? "";
}
