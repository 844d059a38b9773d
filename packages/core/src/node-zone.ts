import type { Node } from "./objects/core.js";

const ZONE_LABEL = "topology.kubernetes.io/zone";

/** The zone a node is in, "" when it is not labelled with one. */
export function nodeZoneOf(node: Node): string {
  return node.metadata.labels?.[ZONE_LABEL] ?? "";
}
