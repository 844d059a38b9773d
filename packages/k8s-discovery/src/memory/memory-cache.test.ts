import type { EndpointSlice, Logger, Pod } from "@destination/core";
import { describe, expect, it, vi } from "vitest";
import { podIpIndex } from "../cluster-indexes.js";
import { MemoryCache } from "./memory-cache.js";

const pod = (name: string, ip: string): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", resourceVersion: "1" },
  spec: { containers: null },
  status: { phase: "Running", podIP: ip },
});

const slice = (name: string, addresses: string[] | null): EndpointSlice => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name, namespace: "ns", resourceVersion: "1" },
  addressType: "IPv4",
  endpoints: [{ addresses: addresses as string[], conditions: {} }],
  ports: null,
});

function warnings() {
  const warn = vi.fn();
  const logger: Logger = { debug() {}, info() {}, warn, error() {} };
  return { logger, messages: () => warn.mock.calls.map(([message]) => message as string) };
}

describe("MemoryCache.replace", () => {
  it("stores an initial list in order, one add each, and is synced after it", () => {
    const cache = new MemoryCache<Pod>("Pod");
    const seen: string[] = [];
    cache.addHandler({
      add: (p) => seen.push(`add ${p.metadata.name} synced=${cache.hasSynced()}`),
    });
    cache.replace([pod("a", "10.0.0.1"), pod("b", "10.0.0.2")]);
    expect(seen).toEqual(["add a synced=false", "add b synced=false"]);
    expect(cache.hasSynced()).toBe(true);
    expect(cache.stats()).toMatchObject({ size: 2, adds: 2, relists: 0 });
  });

  it("still skips, in a list read from protobuf, what protobuf cannot rule out", () => {
    const pods = warnings();
    const podCache = new MemoryCache<Pod>("Pod", { logger: pods.logger });
    podCache.replace([pod("a", "10.0.0.1"), pod("", "10.0.0.2")], { typed: true });
    expect(podCache.list().map((p) => p.metadata.name)).toEqual(["a"]);
    expect(pods.messages()).toEqual([
      "skipping an invalid Pod ns/: metadata.name: Invalid length: Expected !0 but received 0",
    ]);

    const slices = warnings();
    const sliceCache = new MemoryCache<EndpointSlice>("EndpointSlice", { logger: slices.logger });
    sliceCache.replace([slice("web-1", ["10.0.0.1"]), slice("web-2", null)], { typed: true });
    expect(sliceCache.list().map((s) => s.metadata.name)).toEqual(["web-1"]);
    expect(slices.messages()).toEqual([
      "skipping an invalid EndpointSlice ns/web-2: endpoints[0].addresses: expected Array, got null",
    ]);
    expect(sliceCache.stats().invalid).toBe(1);
  });
});

describe("MemoryCache indexes", () => {
  const names = (pods: Pod[]) => pods.map((p) => p.metadata.name).sort();

  it("finds every object filed under a key as objects come, change and go", () => {
    const cache = new MemoryCache<Pod>("Pod", { indexes: [podIpIndex] });
    cache.apply(pod("a", "10.0.0.1"));
    expect(names(cache.byIndex("ip", "10.0.0.1"))).toEqual(["a"]);
    // A second pod on the same IP (one finished, one starting) is filed beside the first.
    cache.apply(pod("b", "10.0.0.1"));
    cache.apply(pod("c", "10.0.0.1"));
    expect(names(cache.byIndex("ip", "10.0.0.1"))).toEqual(["a", "b", "c"]);
    cache.remove("ns", "b");
    expect(names(cache.byIndex("ip", "10.0.0.1"))).toEqual(["a", "c"]);
    // An update that moves a pod to another IP files it there only.
    cache.apply(pod("a", "10.0.0.2"));
    expect(names(cache.byIndex("ip", "10.0.0.1"))).toEqual(["c"]);
    expect(names(cache.byIndex("ip", "10.0.0.2"))).toEqual(["a"]);
    // The same pod applied again stays filed once.
    cache.apply(pod("a", "10.0.0.2"));
    expect(names(cache.byIndex("ip", "10.0.0.2"))).toEqual(["a"]);
    cache.remove("ns", "a");
    cache.remove("ns", "c");
    expect(cache.byIndex("ip", "10.0.0.1")).toEqual([]);
    expect(cache.byIndex("ip", "10.0.0.2")).toEqual([]);
    cache.apply(pod("d", "10.0.0.1"));
    expect(names(cache.byIndex("ip", "10.0.0.1"))).toEqual(["d"]);
  });
});
