import { type Node, nodeZoneOf } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";

/**
 * The zone of each caller's Node (the `topology.kubernetes.io/zone` label; "" when the Node or
 * its label is unknown), and who to tell when it changes: a Node cached after a stream started,
 * or relabelled, must not leave that stream with the zone it had at its start.
 */
export class NodeZones {
  readonly #cluster: Cluster;
  readonly #followers = new Map<string, Set<(zone: string) => void>>();
  readonly #removeHandler: () => void;

  /** Registers a Node handler; create it before the cluster starts. */
  constructor(cluster: Cluster) {
    this.#cluster = cluster;
    this.#removeHandler = cluster.nodes.addHandler({
      add: (node) => this.#changed("", node),
      update: (old, node) => this.#changed(nodeZoneOf(old), node),
    });
  }

  zoneOf(nodeName: string): string {
    const node = nodeName === "" ? undefined : this.#cluster.nodes.get("", nodeName);
    return node === undefined ? "" : nodeZoneOf(node);
  }

  /** Calls `onChange` with the new zone whenever the Node's zone changes; returns the stop. */
  follow(nodeName: string, onChange: (zone: string) => void): () => void {
    if (nodeName === "") return () => {};
    let followers = this.#followers.get(nodeName);
    if (followers === undefined) {
      followers = new Set();
      this.#followers.set(nodeName, followers);
    }
    followers.add(onChange);
    return () => {
      followers.delete(onChange);
      if (followers.size === 0 && this.#followers.get(nodeName) === followers) {
        this.#followers.delete(nodeName);
      }
    };
  }

  stop(): void {
    this.#removeHandler();
    this.#followers.clear();
  }

  #changed(previousZone: string, node: Node): void {
    const zone = nodeZoneOf(node);
    if (zone === previousZone) return;
    const followers = this.#followers.get(node.metadata.name);
    if (followers === undefined) return;
    for (const onChange of [...followers]) onChange(zone);
  }
}
