import { type AddressSet, type Endpoint, InvalidServiceError } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { NS, pod, podEndpoint, server, service, slice } from "@destination/test-support/builders";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it } from "vitest";
import {
  harness,
  LOCAL_KEY,
  RecordingListener,
  SERIES,
  servedWeb,
  WEB,
} from "../test/support/fixtures.js";
import { EndpointsWatcher } from "./endpoints-watcher.js";

/** web:80 → "http" → 8080, pod web-1 in slice web-a. */
const served = () => servedWeb({ pods: 1, slices: 1 });

describe("EndpointsWatcher", () => {
  it("stop() removes every handler; subscriptions then hear nothing", () => {
    const h = served();
    const listener = h.listen();
    listener.take();
    h.watcher.stop();
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")]));
    h.cluster.apply(server("opaque", { port: 8080, podSelector: { app: "web" } }));
    h.cluster.delete("Service", NS, "web");
    expect(listener.take()).toEqual([]);
  });

  it("subscribing to a cached ExternalName Service throws InvalidServiceError and registers nothing", () => {
    const h = harness();
    h.cluster.apply(
      service("ext", { ports: [], type: "ExternalName", externalName: "example.com" }),
    );
    const ext = { namespace: NS, name: "ext" };
    const listener = new RecordingListener();
    const subscribe = () => h.watcher.subscribe(ext, 80, LOCAL_KEY, listener);
    expect(subscribe).toThrow(InvalidServiceError);
    expect(subscribe).toThrow("Invalid k8s service ns/ext");
    expect(h.watcher.subscriberCount(ext)).toBe(0);
    expect(h.metrics.series("endpoints_subscribers").size).toBe(0);
  });

  it("only subscribed services hold a publisher; it goes with the last listener of its last port", () => {
    const h = harness();
    const gauge = () => h.metrics.value("endpoints_publishers", { cluster: "local" });
    for (let i = 0; i < 50; i++) h.cluster.apply(service(`svc-${i}`));
    expect(gauge()).toBe(0);
    for (let cycle = 0; cycle < 3; cycle++) {
      const subscribed = Array.from({ length: 1000 }, (_, i) => {
        const id = { namespace: NS, name: `svc-${i % 100}` };
        const port = 80 + (i % 2);
        return { id, port, listener: h.listen({ service: id, port }) };
      });
      expect(gauge()).toBe(100);
      for (const { id, port, listener } of subscribed) {
        h.watcher.unsubscribe(id, port, LOCAL_KEY, listener);
      }
      expect(gauge()).toBe(0);
      expect(h.metrics.series("endpoints_subscribers").size).toBe(0);
      expect(h.metrics.series("endpoints_pods").size).toBe(0);
    }
  });

  it("subscribing to a missing service is silent, and it is served once it appears", () => {
    const h = harness();
    const listener = h.listen();
    expect(listener.take()).toEqual([]);
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(listener.take()).toEqual([]);
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("losing every endpoint is a remove of all that was announced, never another signal", () => {
    const h = served();
    const calls: string[] = [];
    const listener = {
      add: (set: AddressSet) => calls.push(`add ${set.addresses.size}`),
      remove: (set: AddressSet) => calls.push(`remove ${set.addresses.size}`),
      noEndpoints: (exists: boolean) => calls.push(`noEndpoints ${exists}`),
    };
    h.watcher.subscribe(WEB, 80, LOCAL_KEY, listener);
    h.cluster.delete("EndpointSlice", NS, "web-a");
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    h.cluster.delete("Service", NS, "web");
    expect(calls).toEqual(["add 1", "remove 1", "add 1", "remove 1"]);
  });

  it("a listener calling back into the watcher is never re-entered; its calls run after the current event", () => {
    const h = served();
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(pod("web-3", { ip: "10.0.0.3" }));
    const late = new RecordingListener();
    const log: string[] = [];
    let depth = 0;
    let reacted = false;
    const eager = {
      add(set: AddressSet) {
        depth++;
        log.push(`add ${[...set.addresses.keys()].join(",")} depth=${depth}`);
        if (set.addresses.has("ns/web-2/IPv4") && !reacted) {
          reacted = true;
          h.cluster.apply(slice("web-c", "web", [podEndpoint("web-3", "10.0.0.3")]));
          h.watcher.subscribe(WEB, 80, LOCAL_KEY, late);
          log.push("callback done");
        }
        depth--;
      },
      remove() {},
    };
    h.watcher.subscribe(WEB, 80, LOCAL_KEY, eager);
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(log).toEqual([
      "add ns/web-1/IPv4 depth=1",
      "add ns/web-2/IPv4 depth=1",
      "callback done",
      "add ns/web-3/IPv4 depth=1",
    ]);
    expect(late.take()).toEqual([
      {
        add: [
          "ns/web-1/IPv4 10.0.0.1:8080",
          "ns/web-2/IPv4 10.0.0.2:8080",
          "ns/web-3/IPv4 10.0.0.3:8080",
        ],
      },
    ]);
  });

  it("a malformed slice is skipped where it enters the cluster, a throwing listener is logged; other objects and listeners carry on", () => {
    const h = served();
    const listener = h.listen();
    listener.take();
    const broken = { ...podEndpoint("web-1", "10.0.0.1"), addresses: 5 } as unknown as Endpoint;
    h.cluster.apply(slice("web-a", "web", [broken]));
    expect(listener.take()).toEqual([]);
    // The cluster's cache refuses it with a warning of its own and keeps the last valid version,
    // so the watcher never sees it.
    expect(h.cluster.endpointSlices.stats().invalid).toBe(1);

    const failing = {
      add() {
        throw new Error("queue closed");
      },
      remove() {},
    };
    h.watcher.subscribe(WEB, 80, LOCAL_KEY, failing);
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    expect(h.logger.messages("error")).toContain("endpoints listener failed on add");
    // A new subscription primes from what the cache holds: the last valid version of the
    // refused slice, which the first listener still has too.
    expect(h.listen({ port: 8080 }).take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
  });

  it("unsubscribing from a service never seen logs an error and changes nothing", () => {
    const h = harness();
    h.watcher.unsubscribe({ namespace: NS, name: "ghost" }, 80, LOCAL_KEY, new RecordingListener());
    expect(h.logger.messages("error")).toEqual(["Cannot unsubscribe from unknown service"]);
  });
});

describe("EndpointsWatcher metrics", () => {
  it("each filter group has its endpoints_* series, deleted when the group empties", () => {
    const h = served();
    const a = h.listen();
    const b = h.listen();
    const instance = { ...LOCAL_KEY, hostname: "web-0", nodeName: "node-1" };
    const c = h.listen({ key: instance });
    const instanceSeries = { ...SERIES, hostname: "web-0", nodename: "node-1" };
    expect(h.metrics.value("endpoints_subscribers", SERIES)).toBe(2);
    expect(h.metrics.value("endpoints_subscribers", instanceSeries)).toBe(1);
    expect(h.metrics.value("endpoints_pods", SERIES)).toBe(1);
    expect(h.metrics.value("endpoints_pods", instanceSeries)).toBe(0);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(1);

    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(h.metrics.value("endpoints_updates", SERIES)).toBe(1);
    expect(h.metrics.value("endpoints_pods", SERIES)).toBe(2);

    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, a);
    expect(h.metrics.value("endpoints_subscribers", SERIES)).toBe(1);
    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, b);
    h.watcher.unsubscribe(WEB, 80, instance, c);
    for (const name of [
      "endpoints_subscribers",
      "endpoints_updates",
      "endpoints_pods",
      "endpoints_exists",
    ]) {
      expect(h.metrics.series(name).size).toBe(0);
    }
  });

  it("the cluster label names the watcher's cluster", () => {
    const cluster = new MemoryCluster({ name: "east" });
    const metrics = new InMemoryMetrics();
    const watcher = new EndpointsWatcher(cluster, {
      enableEndpointSlices: true,
      enableIPv6: true,
      metrics,
    });
    watcher.subscribe(WEB, 80, LOCAL_KEY, new RecordingListener());
    expect(metrics.value("endpoints_subscribers", { ...SERIES, cluster: "east" })).toBe(1);
  });
});
