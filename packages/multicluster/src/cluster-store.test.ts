import { describe, expect, it } from "vitest";
import {
  CONTROLLER_NS,
  harness,
  linkSecret,
  recordClusterEvents,
  servedIps,
} from "../test/support/fixtures.js";

/** Lets the background start of remote clusters run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("ClusterStore", () => {
  it("links a cluster per link Secret, listed or added later, and ignores other Secrets", async () => {
    const h = harness();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    h.local.apply({ ...linkSecret("west", "x"), type: "Opaque" });
    h.local.apply({
      ...linkSecret("north", "x"),
      metadata: { ...linkSecret("north", "x").metadata, annotations: {} },
    });
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("south", "10.3.0.1"));
    expect(events).toEqual(["linked east 10.2.0.1", "linked south 10.3.0.1"]);
    expect(h.store.size).toBe(2);
    expect(h.metrics.collect("cluster_store_size")).toEqual([{ labels: {}, value: 2 }]);

    const east = h.store.get("east");
    expect(east).toMatchObject({
      name: "east",
      trustDomain: "east.example",
      clusterDomain: "east.local",
    });
    expect(h.store.clusters().map((c) => c.name)).toEqual(["east", "south"]);
    await settle();
    expect(east === undefined ? [] : servedIps(east)).toEqual(["10.2.0.1"]);
  });

  it("a second link Secret of a name replaces its cluster: listeners hear it, then the old one stops", async () => {
    const h = harness();
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    const first = h.store.get("east");
    h.local.apply(linkSecret("east", "10.2.0.2", "east-rotated"));
    expect(events).toEqual([
      "linked east 10.2.0.1",
      "linked east 10.2.0.2 replacing east 10.2.0.1",
    ]);
    const second = h.store.get("east");
    expect(second).not.toBe(first);
    expect(h.store.size).toBe(1);
    expect(h.made.map((m) => [m.kubeconfig, m.stopped])).toEqual([
      ["east 10.2.0.1", true],
      ["east 10.2.0.2", false],
    ]);
    await settle();
    expect(second === undefined ? [] : servedIps(second)).toEqual(["10.2.0.2"]);
  });

  it("only the Secret a cluster was built from unlinks it; a replaced one's deletion is no news", () => {
    const h = harness();
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    h.local.apply(linkSecret("east", "10.2.0.2", "east-rotated"));
    h.local.delete("Secret", CONTROLLER_NS, "cluster-credentials-east");
    expect(h.store.get("east")).toBeDefined();
    h.local.delete("Secret", CONTROLLER_NS, "east-rotated");
    expect(events).toEqual([
      "linked east 10.2.0.1",
      "linked east 10.2.0.2 replacing east 10.2.0.1",
      // Told before the cluster stops, so that streams can still release what they hold.
      "unlinked east 10.2.0.2",
    ]);
    expect(h.store.get("east")).toBeUndefined();
    expect(h.store.size).toBe(0);
    expect(h.made.map((m) => m.stopped)).toEqual([true, true]);

    // Linked again by a new Secret: a new cluster, heard as a plain link.
    h.local.apply(linkSecret("east", "10.2.0.3"));
    expect(events.slice(3)).toEqual(["linked east 10.2.0.3"]);
  });

  it("a Secret update changes nothing, and a relist unlinks what it no longer lists", () => {
    const h = harness();
    const events = recordClusterEvents(h);
    const watch = h.store.events;
    watch.replace([linkSecret("east", "10.2.0.1"), linkSecret("west", "10.4.0.1")]);
    watch.apply(linkSecret("east", "10.2.0.9"));
    expect(h.describe(h.store.get("east"))).toBe("east 10.2.0.1");
    watch.replace([linkSecret("east", "10.2.0.9")]);
    expect(events).toEqual([
      "linked east 10.2.0.1",
      "linked west 10.4.0.1",
      "unlinked west 10.4.0.1",
    ]);
  });

  it("a replacement that cannot be built leaves the linked cluster serving", () => {
    const h = harness();
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    h.local.apply(linkSecret("east", "broken", "east-broken"));
    h.local.delete("Secret", CONTROLLER_NS, "east-broken");
    expect(events).toEqual(["linked east 10.2.0.1"]);
    expect(h.describe(h.store.get("east"))).toBe("east 10.2.0.1");
    expect(h.made.map((m) => m.stopped)).toEqual([false]);
  });

  it("a failing listener does not keep the others from hearing; unsubscribed ones hear nothing", () => {
    const h = harness();
    const gone: string[] = [];
    const unsubscribe = h.store.subscribe({
      linked: () => gone.push("linked"),
      unlinked: () => gone.push("unlinked"),
    });
    h.store.subscribe({
      linked: () => {
        throw new Error("boom");
      },
      unlinked: () => {},
    });
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    unsubscribe();
    h.local.delete("Secret", CONTROLLER_NS, "cluster-credentials-east");
    expect(gone).toEqual(["linked"]);
    expect(events).toEqual(["linked east 10.2.0.1", "unlinked east 10.2.0.1"]);
  });

  it("stop() stops every cluster without telling listeners", async () => {
    const h = harness();
    const events = recordClusterEvents(h);
    h.watchSecrets();
    h.local.apply(linkSecret("east", "10.2.0.1"));
    h.local.apply(linkSecret("west", "10.4.0.1"));
    await h.store.stop();
    expect(events).toEqual(["linked east 10.2.0.1", "linked west 10.4.0.1"]);
    expect(h.store.size).toBe(0);
    expect(h.made.map((m) => m.stopped)).toEqual([true, true]);
  });
});
