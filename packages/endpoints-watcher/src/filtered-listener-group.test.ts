import type { AddressSetEntry } from "@destination/core";
import { NS, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import {
  harness,
  LOCAL_KEY,
  RecordingListener,
  SERIES,
  servedWeb,
  WEB,
} from "../test/support/fixtures.js";

/** web:80 → "http" → 8080, pods web-1 and web-2, only web-1 in slice web-a. */
const oneSlice = () => servedWeb({ pods: 2, slices: 1 });

describe("filtered listener group", () => {
  it("a joining listener alone gets the filtered set as one add, labels included", () => {
    const h = oneSlice();
    const first = h.listen();
    first.take();
    const second = h.listen();
    expect(second.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(second.lastSet()?.labels).toEqual({ service: "web", namespace: NS });
    expect(first.take()).toEqual([]);
  });

  it("listeners joining while nothing changed share one snapshot object; a change makes a new one", () => {
    const h = oneSlice();
    const first = h.listen();
    const second = h.listen();
    expect(second.lastSet()).toBe(first.lastSet());
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    const third = h.listen();
    expect(third.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    expect(third.lastSet()).not.toBe(first.lastSet());
  });

  it("a joining listener gets nothing for an unknown service, no endpoints, or everything filtered out", () => {
    const h = harness();
    expect(h.listen({ service: { namespace: NS, name: "nope" } }).take()).toEqual([]);
    h.cluster.apply(service("web"));
    h.cluster.apply(slice("web-a", "web", []));
    expect(h.listen().take()).toEqual([]);
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    expect(h.listen({ key: { ...LOCAL_KEY, hostname: "web-0" } }).take()).toEqual([]);
  });

  it("a kept address is re-announced for new hints, opacity or pod version, not for its zone or hostname alone", () => {
    const h = oneSlice();
    const listener = h.listen();
    listener.take();
    const endpoint = (options: Parameters<typeof podEndpoint>[2]) =>
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1", options)]);

    h.cluster.apply(endpoint({ zone: "zone-x" }));
    h.cluster.apply(endpoint({ zone: "zone-y", hostname: "web-1" }));
    expect(listener.take()).toEqual([]);

    h.cluster.apply(
      endpoint({ zone: "zone-y", hostname: "web-1", forZones: ["zone-x", "zone-y"] }),
    );
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    // The add carries every current field, including those that alone were not announced.
    expect(listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address).toMatchObject({
      zone: "zone-y",
      hostname: "web-1",
      forZones: [{ name: "zone-x" }, { name: "zone-y" }],
    });
    // The same zone names in another order are no change.
    h.cluster.apply(
      endpoint({ zone: "zone-y", hostname: "web-1", forZones: ["zone-y", "zone-x"] }),
    );
    expect(listener.take()).toEqual([]);

    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", rev: "2" } }));
    h.cluster.resync();
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("an address whose ip or port changed under the same ID is re-sent, then withdrawn at the old ip:port", () => {
    const h = oneSlice();
    const listener = h.listen();
    listener.take();
    // The pod object is untouched, so upstream (no ip/port comparison) would send nothing.
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.9")]));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.9:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.9")], {
        ports: [{ name: "http", port: 8443 }],
      }),
    );
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.9:8443"] },
      { remove: ["ns/web-1/IPv4 10.0.0.9:8080"] },
    ]);
  });

  it("the old ip:port is not withdrawn when another address now announces it", () => {
    const h = oneSlice();
    const listener = h.listen();
    listener.take();
    // web-1 moves to a new IP while web-2 takes its old one, in one slice update.
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.9"), podEndpoint("web-2", "10.0.0.1")]),
    );
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.9:8080", "ns/web-2/IPv4 10.0.0.1:8080"] },
    ]);
  });

  it("a change adds before it removes; removed addresses carry the values last announced, without labels", () => {
    const h = oneSlice();
    const listener = h.listen();
    const announced = listener.lastSet()?.addresses.get("ns/web-1/IPv4");
    listener.take();
    // A newer pod object in the cache (a status change, which alone is not announced) must
    // not leak into the removal.
    h.cluster.apply({
      ...pod("web-1", { ip: "10.0.0.1" }),
      status: { phase: "Running", podIP: "10.0.0.1", hostIP: "192.168.0.1" },
    });
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect(listener.take()).toEqual([
      { add: ["ns/web-2/IPv4 10.0.0.2:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ]);
    const removal = listener.lastSet();
    expect(removal?.labels).toEqual({});
    expect(removal?.addresses.get("ns/web-1/IPv4")).toBe(announced);
  });

  it("an identical set reaches no listener, yet the publish is counted", () => {
    const h = oneSlice();
    const listener = h.listen();
    listener.take();
    const before = h.metrics.value("endpoints_updates", SERIES) ?? 0;
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
    expect(h.metrics.value("endpoints_updates", SERIES)).toBe(before + 2);
  });

  it("every listener of a group gets the same calls, in the same order", () => {
    const h = oneSlice();
    const a = h.listen();
    const b = h.listen();
    a.take();
    b.take();
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    const expected = [
      { add: ["ns/web-2/IPv4 10.0.0.2:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ];
    expect(a.take()).toEqual(expected);
    expect(b.take()).toEqual(expected);
  });

  it("a listener subscribed twice hears each change twice until one subscription leaves", () => {
    const h = oneSlice();
    const twice = h.listen();
    h.watcher.subscribe(WEB, 80, LOCAL_KEY, twice);
    const other = h.listen();
    twice.take();
    other.take();
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    const change = [
      { add: ["ns/web-2/IPv4 10.0.0.2:8080"] },
      { remove: ["ns/web-1/IPv4 10.0.0.1:8080"] },
    ];
    expect(twice.take()).toEqual([...change, ...change]);
    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, twice);
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    expect(twice.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { remove: ["ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    expect(other.take()).toHaveLength(4);
  });

  it("sets handed to listeners are frozen and never change afterwards", () => {
    const h = oneSlice();
    const listener = h.listen();
    const set = listener.lastSet();
    if (set === undefined) throw new Error("no initial add");
    const entry = set.addresses.get("ns/web-1/IPv4") as AddressSetEntry;
    expect(Object.isFrozen(set)).toBe(true);
    expect(Object.isFrozen(set.labels)).toBe(true);
    expect(Object.isFrozen(entry)).toBe(true);
    expect(Object.isFrozen(entry.address)).toBe(true);
    expect(Object.isFrozen(entry.address.forZones)).toBe(true);
    expect(() => (set.addresses as Map<string, AddressSetEntry>).set("x", entry)).toThrow(
      TypeError,
    );
    expect(() => (set.addresses as Map<string, AddressSetEntry>).delete("ns/web-1/IPv4")).toThrow(
      TypeError,
    );

    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    expect([...set.addresses.keys()]).toEqual(["ns/web-1/IPv4"]);
    expect(set.addresses.get("ns/web-1/IPv4")).toBe(entry);
  });

  it("unsubscribing with remove tells that listener alone to remove what it holds", () => {
    const h = oneSlice();
    const leaving = h.listen();
    const staying = h.listen();
    leaving.take();
    staying.take();
    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, leaving, true);
    expect(leaving.take()).toEqual([{ remove: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(staying.take()).toEqual([]);
    // Nothing to remove, nothing sent; an unknown listener changes nothing.
    const empty = h.listen({ key: { ...LOCAL_KEY, hostname: "none" } });
    h.watcher.unsubscribe(WEB, 80, { ...LOCAL_KEY, hostname: "none" }, empty, true);
    h.watcher.unsubscribe(WEB, 80, LOCAL_KEY, new RecordingListener(), true);
    expect(empty.take()).toEqual([]);
    expect(h.watcher.subscriberCount(WEB, 80)).toBe(1);
  });
});
