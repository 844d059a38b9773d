import type { KubeObject } from "@destination/core";
import { describeBackendSuite } from "@destination/test-support/backend-suite";
import { keyOf } from "../cache.js";
import { RESOURCE_KINDS, type ResourceKind } from "../resource-kind.js";
import { MemoryCluster } from "./memory-cluster.js";

/** A MemoryCluster whose initial objects arrive as the initial list when it starts. */
class SeededMemoryCluster extends MemoryCluster {
  readonly #state: Map<string, KubeObject>;

  constructor(state: Map<string, KubeObject>) {
    super();
    this.#state = state;
  }

  /** Lists the "server" state into every cache, as a relist does. */
  relist(): void {
    for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
      this.replace(
        kind,
        [...this.#state.values()].filter((o) => o.kind === kind),
      );
    }
  }

  override async start(): Promise<void> {
    this.relist();
  }
}

describeBackendSuite("memory", async (initial) => {
  const state = new Map(initial.map((o) => [`${o.kind}/${keyOf(o)}`, o]));
  const cluster = new SeededMemoryCluster(state);
  let connected = true;
  return {
    cluster,
    async apply(...objects) {
      for (const o of objects) {
        state.set(`${o.kind}/${keyOf(o)}`, o);
        if (connected) cluster.apply(o);
      }
    },
    async delete(kind, namespace, name) {
      state.delete(`${kind}/${namespace ? `${namespace}/${name}` : name}`);
      if (connected) cluster.delete(kind, namespace, name);
    },
    async whileDisconnected(change) {
      connected = false;
      await change();
      connected = true;
      cluster.relist();
    },
    close: () => cluster.stop(),
  };
});
