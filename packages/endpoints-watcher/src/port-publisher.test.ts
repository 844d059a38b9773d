import { NS, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness, LOCAL_KEY, SERIES, servedWeb, WEB } from "../test/support/fixtures.js";

/** web:80 → "http" → 8080, pods web-1 and web-2 in slices web-a and web-b. */
const twoSlices = () => servedWeb({ pods: 2, slices: 2 });

describe("port publisher: priming and target ports", () => {
  it("a new subscription is primed from the slices already cached, in one add", () => {
    const h = twoSlices();
    const listener = h.listen();
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
  });

  it("a declared port maps through its name; an undeclared one is used as a number", () => {
    const h = harness();
    h.cluster.apply(service("web", { ports: [{ name: "http", port: 80, targetPort: "web" }] }));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")], {
        ports: [
          { name: "http", port: 8080 },
          { name: "admin", port: 9990 },
        ],
      }),
    );
    expect(h.listen({ port: 80 }).take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(h.listen({ port: 4191 }).take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:4191"] }]);
  });

  it("an unnamed service port matches the slice's unnamed port", () => {
    const h = harness();
    h.cluster.apply(service("web", { ports: [{ port: 80, targetPort: 8080 }] }));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")], { ports: [{ port: 8080 }] }),
    );
    expect(h.listen().take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("a Service that appears after the subscription re-maps its port and re-announces", () => {
    const h = harness();
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    const listener = h.listen();
    // No Service: the requested port is the target, verbatim.
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:80"] }]);
    h.cluster.apply(service("web"));
    // The address kept its ID but moved to another port; the proxy knows endpoints by ip:port,
    // so the old one is withdrawn.
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:80"] },
    ]);
    // The same Service again changes nothing.
    h.cluster.apply(service("web"));
    expect(listener.take()).toEqual([]);
  });

  it("a port remap re-primes every slice from the cache and publishes once", () => {
    const h = harness();
    const ports = [
      { name: "http", port: 8080 },
      { name: "alt", port: 9090 },
    ];
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")], { ports }));
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")], { ports }));
    const listener = h.listen();
    listener.take();
    const updatesBefore = h.metrics.value("endpoints_updates", SERIES);

    h.cluster.apply(service("web", { ports: [{ name: "alt", port: 80, targetPort: 9090 }] }));

    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:9090", "ns/web-2/IPv4 10.0.0.2:9090"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(h.metrics.value("endpoints_updates", SERIES)).toBe((updatesBefore ?? 0) + 1);
  });

  it("a port remap with no slices left publishes nothing, as upstream does", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    const listener = h.listen();
    listener.take();
    // The slice keeps only an ownerReference: its own events still count, re-priming (which
    // looks slices up by their service-name label) no longer finds it.
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")], {
        labels: {},
        ownerReferences: [{ kind: "Service", name: "web" }],
      }),
    );
    listener.take();
    h.cluster.apply(service("web", { ports: [{ name: "alt", port: 80 }] }));
    expect(listener.take()).toEqual([]);
  });
});

describe("port publisher: slices, each keeping its own contribution", () => {
  it("an added slice's addresses join those of the other slices", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(pod("web-3", { ip: "10.0.0.3" }));
    h.cluster.apply(slice("web-c", "web", [podEndpoint("web-3", "10.0.0.3")]));
    expect(listener.take()).toEqual([{ add: ["ns/web-3/IPv4 10.0.0.3:8080"] }]);
    expect(listener.holds()).toEqual([
      "ns/web-1/IPv4 10.0.0.1:8080",
      "ns/web-2/IPv4 10.0.0.2:8080",
      "ns/web-3/IPv4 10.0.0.3:8080",
    ]);
  });

  it("an updated slice's new addresses are added, then its dropped ones removed; labels stay", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(pod("web-3", { ip: "10.0.0.3" }));
    const relabelled = slice("web-a", "web", [podEndpoint("web-3", "10.0.0.3")], {
      labels: { "kubernetes.io/service-name": "web", "mirror.linkerd.io/cluster-name": "east" },
    });
    h.cluster.apply(relabelled);
    expect(listener.take()).toEqual([
      { add: ["ns/web-3/IPv4 10.0.0.3:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
    // Upstream parity: an update does not refresh the set's labels (an add does).
    expect(listener.sets[1]?.set.labels).toEqual({ service: "web", namespace: NS });
  });

  it("a slice relabelled to another service leaves the old one", () => {
    const h = twoSlices();
    h.cluster.apply(service("api"));
    const web = h.listen();
    const api = h.listen({ service: { namespace: NS, name: "api" } });
    web.take();
    h.cluster.apply(slice("web-a", "api", [podEndpoint("web-1", "10.0.0.1")]));
    expect(web.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(api.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("seed: with two slices for one service, deleting one keeps the other's addresses", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.delete("EndpointSlice", NS, "web-a");
    expect(listener.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(listener.holds()).toEqual(["ns/web-2/IPv4 10.0.0.2:8080"]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(1);
  });

  it("seed: a slice whose endpoints all become not ready has all of them removed", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    const endpoints = (ready: boolean) => [
      podEndpoint("web-1", "10.0.0.1", { ready }),
      podEndpoint("web-2", "10.0.0.2", { ready }),
    ];
    h.cluster.apply(slice("web-a", "web", endpoints(true)));
    const listener = h.listen();
    listener.take();
    h.cluster.apply(slice("web-a", "web", endpoints(false)));
    expect(listener.take()).toEqual([
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    h.cluster.apply(slice("web-a", "web", endpoints(true)));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
  });

  it("seed: a slice moved between address types (IPv4 → IPv6) swaps the IDs, add first", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: ["10.0.0.1", "fd00::1"] }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "fd00::1")], { addressType: "IPv6" }),
    );
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv6 fd00::1:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
  });

  it("an endpoint added to its new slice before leaving the old one is never removed", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    // web-1 moves from web-a to web-b: the new slice lists it first.
    h.cluster.apply(
      slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2"), podEndpoint("web-1", "10.0.0.1")]),
    );
    h.cluster.apply(slice("web-a", "web", []));
    expect(listener.take()).toEqual([]);
    expect(listener.holds()).toEqual([
      "ns/web-1/IPv4 10.0.0.1:8080",
      "ns/web-2/IPv4 10.0.0.2:8080",
    ]);
    // It goes only once no slice lists it.
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(listener.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("an endpoint dropped from its old slice before the new one lists it is removed, then added", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(slice("web-a", "web", []));
    h.cluster.apply(
      slice("web-b", "web", [podEndpoint("web-2", "10.0.0.2"), podEndpoint("web-1", "10.0.0.1")]),
    );
    expect(listener.take()).toEqual([
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
  });

  it("where two slices list one endpoint, the most recently changed slice's fields are served", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-a"] })]),
    );
    h.cluster.apply(
      slice("web-b", "web", [podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-b"] })]),
    );
    const listener = h.listen();
    const hints = () => listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address.forZones;
    expect(hints()).toEqual([{ name: "zone-b" }]);

    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-c"] })]),
    );
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
    expect(hints()).toEqual([{ name: "zone-c" }]);

    // The winner gone, the other slice's fields come back; a resync changes no winner.
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
    h.cluster.delete("EndpointSlice", NS, "web-a");
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(hints()).toEqual([{ name: "zone-b" }]);
  });

  it("a deleted slice removes what it contributed; a pod gone first has already taken its address", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.delete("Pod", NS, "web-1");
    expect(listener.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    h.cluster.delete("EndpointSlice", NS, "web-a");
    expect(listener.take()).toEqual([]);
    h.cluster.delete("EndpointSlice", NS, "web-b");
    expect(listener.take()).toEqual([{ remove: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
  });

  it("when the last slice goes, everything is removed and endpoints_exists drops to 0", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.delete("EndpointSlice", NS, "web-a");
    h.cluster.delete("EndpointSlice", NS, "web-b");
    expect(listener.take()).toEqual([
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { remove: ["ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(0);
    expect(h.metrics.value("endpoints_pods", SERIES)).toBe(0);
    // A new slice brings the service back.
    h.cluster.apply(slice("web-c", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(1);
  });

  it("a slice's update or deletion never touches another slice's addresses", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1", { ready: false })]));
    h.cluster.delete("EndpointSlice", NS, "web-a");
    expect(listener.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(listener.holds()).toEqual(["ns/web-2/IPv4 10.0.0.2:8080"]);
  });
});

describe("port publisher: Service events", () => {
  it("deleting the Service removes every address; listeners stay, and get them back when it returns", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    h.cluster.delete("Service", NS, "web");
    expect(listener.take()).toEqual([
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(0);
    expect(h.metrics.value("endpoints_subscribers", SERIES)).toBe(1);

    // The Service comes back with the same mapping: its slices, still cached, are served again
    // at once, in one add (upstream waited for a slice event).
    h.cluster.apply(service("web"));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(1);
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
  });

  it("toggling internalTrafficPolicy re-filters what the group has and publishes the difference", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", nodeName: "node-1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2", nodeName: "node-2" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
    );
    const listener = h.listen({ key: { ...LOCAL_KEY, nodeName: "node-1" } });
    listener.take();

    h.cluster.apply(service("web", { internalTrafficPolicy: "Local" }));
    expect(listener.take()).toEqual([{ remove: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    h.cluster.apply(service("web", { internalTrafficPolicy: "Cluster" }));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
  });

  it("a pod's status change reaches listeners only when its slice is processed again", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    const moved = {
      ...pod("web-1", { ip: "10.0.0.1" }),
      status: { phase: "Running", podIP: "10.0.0.1", hostIP: "192.168.0.7" },
    };
    h.cluster.apply(moved);
    expect(listener.take()).toEqual([]);
    h.cluster.resync();
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address.pod?.status?.hostIP).toBe(
      "192.168.0.7",
    );
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
  });

  it("a pod's new labels that its address reads are announced at once, without waiting for its slice", () => {
    const h = twoSlices();
    const listener = h.listen();
    listener.take();
    const labels = { app: "web", "pod-template-hash": "2" };
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(
      listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address.pod?.metadata.labels,
    ).toEqual(labels);
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
  });

  it("a port publisher goes with its last listener; a new one is primed afresh", () => {
    const h = twoSlices();
    const first = h.listen();
    const second = h.listen({ port: 8080 });
    expect(h.watcher.subscribedPorts(WEB)).toEqual([80, 8080]);
    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, first);
    expect(h.watcher.subscribedPorts(WEB)).toEqual([8080]);
    expect(h.watcher.subscriberCount(WEB)).toBe(1);
    h.watcher.unsubscribe(WEB, 8080, LOCAL_KEY, second);
    expect(h.watcher.subscribedPorts(WEB)).toEqual([]);
    expect(h.listen().take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
  });
});
