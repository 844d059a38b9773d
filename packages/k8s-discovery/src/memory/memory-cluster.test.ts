import type { Logger, Pod } from "@destination/core";
import { describe, expect, it, vi } from "vitest";
import { MemoryCluster } from "./memory-cluster.js";

const pod = (name: string, ip: string, extra: Partial<Pod> = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns" },
  status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
  ...extra,
});

describe("MemoryCluster", () => {
  it("emits add, update and delete in order, with the last known object on delete", () => {
    const cluster = new MemoryCluster();
    const seen: string[] = [];
    cluster.pods.addHandler({
      add: (p) => seen.push(`add ${p.metadata.name} ${p.status?.podIP}`),
      update: (o, n) => seen.push(`update ${o.status?.podIP}->${n.status?.podIP}`),
      delete: (p) => seen.push(`delete ${p.metadata.name} ${p.status?.podIP}`),
    });
    cluster.apply(pod("a", "10.0.0.1"));
    cluster.apply(pod("a", "10.0.0.2"));
    cluster.delete("Pod", "ns", "a");
    expect(seen).toEqual(["add a 10.0.0.1", "update 10.0.0.1->10.0.0.2", "delete a 10.0.0.2"]);
  });

  it("stamps a fresh resourceVersion on every apply and keeps the uid", () => {
    const cluster = new MemoryCluster();
    cluster.apply(pod("a", "10.0.0.1"));
    const first = cluster.pods.get("ns", "a");
    cluster.apply(pod("a", "10.0.0.1"));
    const second = cluster.pods.get("ns", "a");
    expect(second?.metadata.resourceVersion).not.toEqual(first?.metadata.resourceVersion);
    expect(second?.metadata.uid).toEqual(first?.metadata.uid);
  });

  it("indexes pods by IP and skips terminating and finished pods", () => {
    const cluster = new MemoryCluster();
    cluster.apply(pod("a", "10.0.0.1"));
    cluster.apply(pod("b", "10.0.0.2", { status: { phase: "Succeeded", podIP: "10.0.0.2" } }));
    cluster.apply(pod("c", "2001:DB8::1"));
    expect(cluster.indexes.podsByIp("10.0.0.1").map((p) => p.metadata.name)).toEqual(["a"]);
    expect(cluster.indexes.podsByIp("10.0.0.2")).toEqual([]);
    expect(cluster.indexes.podsByIp("2001:db8::1").map((p) => p.metadata.name)).toEqual(["c"]);
  });

  it("reconciles a relist: adds, changes and deletes surface, unchanged objects stay silent", () => {
    const cluster = new MemoryCluster();
    cluster.apply(pod("keep", "10.0.0.1"));
    cluster.apply(pod("change", "10.0.0.2"));
    cluster.apply(pod("gone", "10.0.0.3"));
    const seen: string[] = [];
    cluster.pods.addHandler({
      add: (p) => seen.push(`add ${p.metadata.name}`),
      update: (_, n) => seen.push(`update ${n.metadata.name}`),
      delete: (p) => seen.push(`delete ${p.metadata.name}`),
    });
    cluster.replace("Pod", [
      pod("keep", "10.0.0.1"),
      pod("change", "10.0.0.9"),
      pod("new", "10.0.0.4"),
    ]);
    expect(seen.sort()).toEqual(["add new", "delete gone", "update change"]);
  });

  it("skips an invalid object with one warning; an invalid update leaves the stored version", () => {
    const warn = vi.fn();
    const logger: Logger = { debug() {}, info() {}, warn, error() {} };
    const cluster = new MemoryCluster({ logger });
    const seen: string[] = [];
    cluster.pods.addHandler({
      add: (p) => seen.push(`add ${p.metadata.name}`),
      update: (_, n) => seen.push(`update ${n.metadata.name}`),
      delete: (p) => seen.push(`delete ${p.metadata.name} ${p.status?.podIP}`),
    });
    cluster.apply(pod("a", "10.0.0.1"));
    cluster.apply(pod("a", "10.0.0.2", { status: { podIPs: "10.0.0.2" as never } }));
    cluster.apply(pod("b", "10.0.0.3", { metadata: { name: "b", labels: [] as never } }));
    cluster.apply({ kind: "Pod", metadata: "junk" } as never);
    // A relist with an invalid version of a keeps a, and drops nothing else for the invalid item.
    cluster.replace("Pod", [
      pod("c", "10.0.0.4"),
      { kind: "Pod" } as never,
      pod("a", "10.0.0.5", { spec: { hostNetwork: "yes" as never } }),
    ]);
    expect(seen).toEqual(["add a", "add c"]);
    expect(cluster.pods.list().map((p) => `${p.metadata.name} ${p.status?.podIP}`)).toEqual([
      "a 10.0.0.1",
      "c 10.0.0.4",
    ]);
    expect(cluster.pods.stats().invalid).toBe(5);
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'skipping an invalid Pod ns/a: status.podIPs: expected Array, got "10.0.0.2"',
      "skipping an invalid Pod b: metadata.labels: expected Object, got Array",
      "skipping an invalid Pod <no name>: metadata.name: missing",
      // Stamping gives even an object without metadata a metadata of its own.
      "skipping an invalid Pod <no name>: metadata.name: missing",
      'skipping an invalid Pod ns/a: spec.hostNetwork: expected boolean, got "yes"',
    ]);
  });
});
