import type { Logger, ProfileListener, ServiceProfile } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it, vi } from "vitest";
import { ProfileWatcher } from "./profile-watcher.js";

const NS = "emojivoto";
const FQDN = "web.emojivoto.svc.cluster.local";
const ID = { namespace: NS, name: FQDN };
const LABELS = { namespace: NS, profile: FQDN };

function serviceProfile(route: string, namespace = NS, name = FQDN): ServiceProfile {
  return {
    apiVersion: "linkerd.io/v1alpha2",
    kind: "ServiceProfile",
    metadata: { namespace, name },
    spec: { routes: [{ name: route, condition: { pathRegex: `/${route}` } }] },
  };
}

/** A listener that records what it is told: the route name of each profile, or null. */
function recorder(): ProfileListener & { profiles: (ServiceProfile | null)[]; seen: string[] } {
  const profiles: (ServiceProfile | null)[] = [];
  return {
    profiles,
    get seen() {
      return profiles.map((p) => (p === null ? "null" : (p.spec?.routes?.[0]?.name ?? "?")));
    },
    update: (p) => void profiles.push(p),
  };
}

/** A logger whose calls can be asserted. */
function spyLogger() {
  type Log = Logger["error"];
  return { debug: vi.fn<Log>(), info: vi.fn<Log>(), warn: vi.fn<Log>(), error: vi.fn<Log>() };
}

function setup() {
  const cluster = new MemoryCluster();
  const metrics = new InMemoryMetrics();
  const logger = spyLogger();
  const watcher = new ProfileWatcher(cluster, { metrics, logger });
  return { cluster, metrics, logger, watcher };
}

describe("ProfileWatcher", () => {
  it("a new subscriber is told the current profile at once, as the cache's own object", () => {
    const { cluster, watcher } = setup();
    cluster.apply(serviceProfile("a"));
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.seen).toEqual(["a"]);
    expect(listener.profiles[0]).toBe(cluster.serviceProfiles.get(NS, FQDN));
  });

  it("a profile that existed before the watcher is read from the cache on subscribe", () => {
    const cluster = new MemoryCluster();
    cluster.apply(serviceProfile("early"));
    const watcher = new ProfileWatcher(cluster);
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.seen).toEqual(["early"]);
  });

  it("a subscriber to an id without a profile is told null at once", () => {
    const { watcher } = setup();
    const listener = recorder();
    watcher.subscribe({ namespace: "client-ns", name: FQDN }, listener);
    expect(listener.profiles).toEqual([null]);
  });

  it("a failed cache read is logged and the subscriber is told null", () => {
    const { cluster, watcher, logger } = setup();
    vi.spyOn(cluster.serviceProfiles, "get").mockImplementation(() => {
      throw new Error("cache broken");
    });
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.profiles).toEqual([null]);
    expect(logger.error).toHaveBeenCalledWith(
      "cannot read ServiceProfile from the cache",
      expect.objectContaining({ namespace: NS, profile: FQDN }),
    );
  });

  it("every add, update and resync reaches every listener, identical content included", () => {
    const { cluster, watcher } = setup();
    const first = recorder();
    const second = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(ID, second);
    cluster.apply(serviceProfile("a"));
    cluster.apply(serviceProfile("b"));
    cluster.apply(serviceProfile("b"));
    cluster.resync();
    expect(first.seen).toEqual(["null", "a", "b", "b", "b"]);
    expect(second.seen).toEqual(["null", "a", "b", "b", "b"]);
    // A resync hands over the very object of the last update, so identity dedup downstream works.
    expect(first.profiles[4]).toBe(first.profiles[3]);
    expect(first.profiles[3]).not.toBe(first.profiles[2]);
  });

  it("a profile reaches only the listeners of its own namespace and name", () => {
    const { cluster, watcher } = setup();
    const listener = recorder();
    watcher.subscribe(ID, listener);
    cluster.apply(serviceProfile("other-ns", "client-ns"));
    cluster.apply(serviceProfile("other-name", NS, "api.emojivoto.svc.cluster.local"));
    expect(listener.seen).toEqual(["null"]);
  });

  it("a delete tells every listener null, and a re-created profile is forwarded again", () => {
    const { cluster, watcher } = setup();
    cluster.apply(serviceProfile("a"));
    const first = recorder();
    const second = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(ID, second);
    cluster.delete("ServiceProfile", NS, FQDN);
    cluster.apply(serviceProfile("c"));
    expect(first.seen).toEqual(["a", "null", "c"]);
    expect(second.seen).toEqual(["a", "null", "c"]);
  });

  it("unsubscribing an unknown id only logs", () => {
    const { watcher, logger, metrics } = setup();
    expect(() => watcher.unsubscribe(ID, recorder())).not.toThrow();
    expect(logger.error).toHaveBeenCalledWith("cannot unsubscribe from an unknown profile", LABELS);
    expect(metrics.value("profile_subscribers", LABELS)).toBeUndefined();
    const listener = recorder();
    watcher.subscribe(ID, listener);
    expect(listener.profiles).toEqual([null]);
  });

  it("a publisher and its series go with the last subscriber; the next one reads the cache", () => {
    const { cluster, watcher, metrics } = setup();
    cluster.apply(serviceProfile("a"));
    const gone = recorder();
    watcher.subscribe(ID, gone);
    expect(metrics.value("profile_publishers")).toBe(1);
    watcher.unsubscribe(ID, gone);
    expect(metrics.value("profile_subscribers", LABELS)).toBeUndefined();
    expect(metrics.value("profile_updates", LABELS)).toBeUndefined();
    expect(metrics.value("profile_publishers")).toBe(0);
    cluster.apply(serviceProfile("b"));
    expect(metrics.value("profile_updates", LABELS)).toBeUndefined();
    expect(gone.seen).toEqual(["a"]);
    const later = recorder();
    watcher.subscribe(ID, later);
    expect(later.seen).toEqual(["b"]);
    expect(metrics.value("profile_subscribers", LABELS)).toBe(1);
    expect(metrics.value("profile_updates", LABELS)).toBe(0);
  });

  it("ids from client namespaces leave nothing behind once their streams are gone", () => {
    const { cluster, watcher, metrics } = setup();
    cluster.apply(serviceProfile("a"));
    for (let cycle = 0; cycle < 3; cycle++) {
      const subscribed = Array.from({ length: 2000 }, (_, i) => {
        const id = { namespace: `ns-${i}`, name: FQDN };
        const listener = recorder();
        watcher.subscribe(id, listener);
        return { id, listener };
      });
      expect(metrics.value("profile_publishers")).toBe(2000);
      expect(metrics.series("profile_subscribers").size).toBe(2000);
      for (const { id, listener } of subscribed) watcher.unsubscribe(id, listener);
      expect(metrics.value("profile_publishers")).toBe(0);
      expect(metrics.series("profile_subscribers").size).toBe(0);
      expect(metrics.series("profile_updates").size).toBe(0);
    }
  });

  it("with a linger, an id without listeners is kept until the timer fires", () => {
    const cluster = new MemoryCluster();
    const metrics = new InMemoryMetrics();
    let fire: (() => void) | undefined;
    const watcher = new ProfileWatcher(cluster, {
      metrics,
      lingerMs: 30_000,
      timers: {
        setTimeout: (callback) => {
          fire = callback;
          return 1;
        },
        clearTimeout: () => {
          fire = undefined;
        },
      },
    });
    const listener = recorder();
    watcher.subscribe(ID, listener);
    watcher.unsubscribe(ID, listener);
    cluster.apply(serviceProfile("a"));
    expect(metrics.value("profile_updates", LABELS)).toBe(1);
    expect(metrics.value("profile_publishers")).toBe(1);
    fire?.();
    expect(metrics.value("profile_publishers")).toBe(0);
    expect(metrics.value("profile_updates", LABELS)).toBeUndefined();
  });

  it("an unsubscribed listener hears nothing more while the others still do", () => {
    const { cluster, watcher } = setup();
    const leaving = recorder();
    const staying = recorder();
    watcher.subscribe(ID, leaving);
    watcher.subscribe(ID, staying);
    watcher.unsubscribe(ID, leaving);
    cluster.apply(serviceProfile("a"));
    cluster.delete("ServiceProfile", NS, FQDN);
    expect(leaving.seen).toEqual(["null"]);
    expect(staying.seen).toEqual(["null", "a", "null"]);
  });

  it("metrics: profile_subscribers counts listeners, profile_updates counts forwarded events", () => {
    const { cluster, watcher, metrics } = setup();
    const otherLabels = { namespace: "client-ns", profile: FQDN };
    // A profile nobody listens to has no series.
    cluster.apply(serviceProfile("a"));
    expect(metrics.value("profile_subscribers", LABELS)).toBeUndefined();
    expect(metrics.value("profile_updates", LABELS)).toBeUndefined();
    const first = recorder();
    watcher.subscribe(ID, first);
    watcher.subscribe(ID, recorder());
    watcher.subscribe({ namespace: "client-ns", name: FQDN }, recorder());
    expect(metrics.value("profile_subscribers", LABELS)).toBe(2);
    expect(metrics.value("profile_subscribers", otherLabels)).toBe(1);
    // Initial values told on subscribe are not updates.
    expect(metrics.value("profile_updates", LABELS)).toBe(0);
    expect(metrics.value("profile_updates", otherLabels)).toBe(0);
    cluster.apply(serviceProfile("b"));
    cluster.resync();
    cluster.delete("ServiceProfile", NS, FQDN);
    expect(metrics.value("profile_updates", LABELS)).toBe(3);
    watcher.unsubscribe(ID, first);
    expect(metrics.value("profile_subscribers", LABELS)).toBe(1);
  });

  it("a throwing listener is logged and the others still get the update", () => {
    const { cluster, watcher, logger } = setup();
    const before = recorder();
    const after = recorder();
    watcher.subscribe(ID, before);
    watcher.subscribe(ID, {
      update: (p) => {
        if (p !== null) throw new Error("boom");
      },
    });
    watcher.subscribe(ID, after);
    cluster.apply(serviceProfile("a"));
    expect(before.seen).toEqual(["null", "a"]);
    expect(after.seen).toEqual(["null", "a"]);
    expect(logger.error).toHaveBeenCalledWith(
      "listener failed",
      expect.objectContaining({ ...LABELS, error: "Error: boom" }),
    );
  });

  it("a listener is never re-entered: what it causes is delivered after it returns, in order", () => {
    const { cluster, watcher } = setup();
    const log: string[] = [];
    const late: ProfileListener = {
      update: (p) => void log.push(`late ${p?.spec?.routes?.[0]?.name ?? "null"}`),
    };
    const eager: ProfileListener = {
      update: (p) => {
        const route = p?.spec?.routes?.[0]?.name ?? "null";
        log.push(`eager enter ${route}`);
        if (route === "a") {
          watcher.subscribe(ID, late);
          cluster.apply(serviceProfile("b"));
        }
        log.push(`eager exit ${route}`);
      },
    };
    watcher.subscribe(ID, eager);
    cluster.apply(serviceProfile("a"));
    expect(log).toEqual([
      "eager enter null",
      "eager exit null",
      "eager enter a",
      "eager exit a",
      "late a",
      "eager enter b",
      "eager exit b",
      "late b",
    ]);
  });

  it("a listener unsubscribed during a delivery does not get the rest of it", () => {
    const { cluster, watcher } = setup();
    const victim = recorder();
    const killer: ProfileListener = {
      update: (p) => {
        if (p !== null) watcher.unsubscribe(ID, victim);
      },
    };
    watcher.subscribe(ID, killer);
    watcher.subscribe(ID, victim);
    cluster.apply(serviceProfile("a"));
    expect(victim.seen).toEqual(["null"]);
  });

  it("stop() removes the cache handler: later events reach no listener", () => {
    const { cluster, watcher } = setup();
    const listener = recorder();
    watcher.subscribe(ID, listener);
    watcher.stop();
    cluster.apply(serviceProfile("a"));
    expect(listener.seen).toEqual(["null"]);
  });
});
