import { type Logger, silentLogger } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { ManualClock } from "@destination/test-support/manual-clock";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it } from "vitest";
import { CONTROLLER_NS, linkSecret } from "../test/support/fixtures.js";
import { ClusterStore } from "./cluster-store.js";

/** Lets the background start of remote clusters run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ClusterStore sync timeout", () => {
  it("logs a remote cluster not synced after syncTimeoutMs, once, and keeps it linked", async () => {
    const clock = new ManualClock();
    const lines: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      info: (message) => void lines.push(`info ${message}`),
      error: (message) => void lines.push(`error ${message}`),
    };
    const store = new ClusterStore({
      factory: (name) => {
        const cluster = new MemoryCluster({ name });
        cluster.whenSynced = () => new Promise<void>(() => {}); // never syncs
        return cluster;
      },
      enableEndpointSlices: true,
      enableIPv6: true,
      syncTimeoutMs: 1_000,
      metrics: new InMemoryMetrics(),
      logger,
      clock,
    });
    const local = new MemoryCluster();
    local.apply(linkSecret("east", "10.2.0.1"));
    local.watchSecrets(CONTROLLER_NS, store.events);
    await settle();
    clock.advance(999);
    await settle();
    expect(lines).toEqual([]);
    clock.advance(1);
    await settle();
    expect(lines).toEqual([
      "error remote cluster east caches not synced yet; serving what is there",
    ]);
    expect(store.get("east")?.name).toBe("east");
    await store.stop();
  });
});
