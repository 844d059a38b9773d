import type { Node } from "@destination/core";
import {
  node as buildNode,
  NS,
  pod,
  podEndpoint,
  service,
  slice,
} from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness, LOCAL_KEY } from "../test/support/fixtures.js";

function node(name: string, zone: string): Node {
  return buildNode(name, { zone });
}

const ON_NODE_1 = { ...LOCAL_KEY, nodeName: "node-1" };
const REMOTE = { hostname: "", nodeName: "node-1", enableEndpointFiltering: false };

describe("filter pipeline", () => {
  it("an instance subscription sees only that hostname, with or without endpoint filtering", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    for (const n of [0, 1, 2]) h.cluster.apply(pod(`web-${n}`, { ip: `10.0.0.${n + 1}` }));
    h.cluster.apply(
      slice("web-a", "web", [
        podEndpoint("web-0", "10.0.0.1", { hostname: "web-0" }),
        podEndpoint("web-1", "10.0.0.2", { hostname: "web-1" }),
        podEndpoint("web-2", "10.0.0.3"),
      ]),
    );
    const local = h.listen({ key: { ...LOCAL_KEY, hostname: "web-0" } });
    const remote = h.listen({ key: { ...REMOTE, hostname: "web-0" } });
    const any = h.listen({ key: { ...REMOTE, hostname: "" } });
    expect(local.take()).toEqual([{ add: ["ns/web-0/IPv4 10.0.0.1:8080"] }]);
    expect(remote.take()).toEqual([{ add: ["ns/web-0/IPv4 10.0.0.1:8080"] }]);
    expect(any.holds()).toHaveLength(3);
  });

  it("internalTrafficPolicy Local keeps only pods on the subscriber's node, with no fallback and no hints", () => {
    const h = harness();
    h.cluster.apply(node("node-1", "zone-a"));
    h.cluster.apply(service("web", { internalTrafficPolicy: "Local" }));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", nodeName: "node-1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2", nodeName: "node-2" }));
    h.cluster.apply(
      slice("web-a", "web", [
        podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-b"] }),
        podEndpoint("web-2", "10.0.0.2", { forZones: ["zone-a"] }),
        { addresses: ["10.1.0.9"] },
      ]),
    );
    const local = h.listen({ key: ON_NODE_1 });
    expect(local.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    // Nobody on the node: nothing at all.
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", nodeName: "node-2" }));
    h.cluster.resync();
    expect(local.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    // Remote discovery ignores the policy.
    expect(h.listen({ key: REMOTE }).holds()).toHaveLength(3);
  });

  it("zone hints apply only when every candidate has some, and are ignored when they leave nothing", () => {
    const h = harness();
    h.cluster.apply(node("node-1", "zone-a"));
    h.cluster.apply(service("web"));
    for (const n of [1, 2, 3]) h.cluster.apply(pod(`web-${n}`, { ip: `10.0.0.${n}` }));
    const hinted = (zone1: string) =>
      slice("web-a", "web", [
        podEndpoint("web-1", "10.0.0.1", { forZones: [zone1] }),
        podEndpoint("web-2", "10.0.0.2", { forZones: ["zone-b"] }),
      ]);
    h.cluster.apply(hinted("zone-a"));
    const listener = h.listen({ key: ON_NODE_1 });
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);

    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-3", "10.0.0.3")]));
    expect(listener.take()).toEqual([
      { add: ["ns/web-2/IPv4 10.0.0.2:8080", "ns/web-3/IPv4 10.0.0.3:8080"] },
    ]);

    h.cluster.delete("EndpointSlice", NS, "web-b");
    expect(listener.take()).toEqual([
      { remove: ["ns/web-2/IPv4 10.0.0.2:8080", "ns/web-3/IPv4 10.0.0.3:8080"] },
    ]);
    // No endpoint is hinted for zone-a any more: the hints are ignored.
    h.cluster.apply(hinted("zone-b"));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(listener.holds()).toEqual([
      "ns/web-1/IPv4 10.0.0.1:8080",
      "ns/web-2/IPv4 10.0.0.2:8080",
    ]);
  });

  it("zone hints follow the subscriber's node: its zone when cached, none until then, and a relabelled zone", () => {
    const h = harness();
    h.cluster.apply(node("node-1", "zone-a"));
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(
      slice("web-a", "web", [
        podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-a"] }),
        podEndpoint("web-2", "10.0.0.2", { forZones: ["zone-b"] }),
      ]),
    );
    const listener = h.listen({ key: ON_NODE_1 });
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    h.cluster.apply(node("node-1", "zone-b"));
    expect(listener.take()).toEqual([
      { add: ["ns/web-2/IPv4 10.0.0.2:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
    h.cluster.resync();
    expect(listener.take()).toEqual([]);

    const unknown = h.listen({ key: { ...LOCAL_KEY, nodeName: "node-9" } });
    expect(unknown.holds()).toEqual(["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"]);
    expect(h.logger.messages("error")).toContain(
      "subscriber's node is not in the cache; no zone for topology hints",
    );
    unknown.take();
    // The node is cached after the subscription: its zone applies from then on.
    h.cluster.apply(node("node-9", "zone-a"));
    expect(unknown.take()).toEqual([{ remove: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    expect(unknown.holds()).toEqual(["ns/web-1/IPv4 10.0.0.1:8080"]);
  });

  it("dual-stack workloads are served over IPv6 when it is enabled, IPv4 otherwise", () => {
    for (const enableIPv6 of [true, false]) {
      const h = harness({ enableIPv6 });
      h.cluster.apply(service("web"));
      h.cluster.apply(pod("web-1", { ip: ["10.0.0.1", "fd00::1"] }));
      h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
      h.cluster.apply(
        slice("web-v4", "web", [
          podEndpoint("web-1", "10.0.0.1"),
          podEndpoint("web-2", "10.0.0.2"),
        ]),
      );
      h.cluster.apply(
        slice("web-v6", "web", [podEndpoint("web-1", "fd00::1")], { addressType: "IPv6" }),
      );
      expect(h.listen().take()).toEqual([
        {
          add: enableIPv6
            ? ["ns/web-1/IPv6 fd00::1:8080", "ns/web-2/IPv4 10.0.0.2:8080"]
            : ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"],
        },
      ]);
    }
  });

  it("an IPv6 twin hinted for another zone does not suppress the IPv4 address", () => {
    const h = harness();
    h.cluster.apply(node("node-1", "zone-a"));
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: ["10.0.0.1", "fd00::1"] }));
    h.cluster.apply(
      slice("web-v4", "web", [podEndpoint("web-1", "10.0.0.1", { forZones: ["zone-a"] })]),
    );
    h.cluster.apply(
      slice("web-v6", "web", [podEndpoint("web-1", "fd00::1", { forZones: ["zone-b"] })], {
        addressType: "IPv6",
      }),
    );
    expect(h.listen({ key: ON_NODE_1 }).take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(h.listen({ key: REMOTE }).take()).toEqual([{ add: ["ns/web-1/IPv6 fd00::1:8080"] }]);
  });
});
