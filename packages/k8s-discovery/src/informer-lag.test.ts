import type { ManagedFieldsEntry } from "@destination/core";
import { describe, expect, it } from "vitest";
import { informerLagSeconds, observeInformerLag } from "./informer-lag.js";
import { latestUpdateTime } from "./managed-fields.js";
import { MemoryCluster } from "./memory/memory-cluster.js";

const at = (time: string, operation = "Update"): ManagedFieldsEntry => ({ operation, time });
const obj = (managedFields: ManagedFieldsEntry[]) => ({ metadata: { name: "a", managedFields } });

describe("informer lag from managedFields Update times", () => {
  it("takes the latest Update time and ignores Apply entries", () => {
    expect(
      latestUpdateTime([
        at("2026-01-01T00:00:05Z"),
        at("2026-01-01T00:00:09Z", "Apply"),
        at("2026-01-01T00:00:07Z"),
        { operation: "Update", time: null },
      ]),
    ).toBe(Date.parse("2026-01-01T00:00:07Z"));
    expect(latestUpdateTime([at("yesterday"), at("2026-01-01T00:00:03Z")])).toBe(
      Date.parse("2026-01-01T00:00:03Z"),
    );
    expect(latestUpdateTime([at("2026-01-01T00:00:09Z", "Apply")])).toBe(0);
    expect(latestUpdateTime(undefined)).toBe(0);
  });

  it("measures from the new object's latest Update to now", () => {
    const now = Date.parse("2026-01-01T00:00:10Z");
    expect(
      informerLagSeconds(
        obj([at("2026-01-01T00:00:01Z")]),
        obj([at("2026-01-01T00:00:07.5Z")]),
        now,
      ),
    ).toBe(2.5);
  });

  it("observes nothing when the Update time did not move (a resync) or there is none", () => {
    const same = obj([at("2026-01-01T00:00:07Z")]);
    expect(informerLagSeconds(same, same, Date.now())).toBeUndefined();
    expect(
      informerLagSeconds(same, obj([at("2026-01-01T00:00:08Z", "Apply")]), Date.now()),
    ).toBeUndefined();
    expect(informerLagSeconds(same, obj([]), Date.now())).toBeUndefined();
  });

  it("reports lag of updates on lag-tracked caches only", () => {
    const cluster = new MemoryCluster();
    const seen: string[] = [];
    observeInformerLag(
      cluster,
      {
        watchRestarted() {},
        relisted() {},
        errored() {},
        eventReceived() {},
        observeLag: (kind, seconds) => seen.push(`${kind} ${seconds}`),
      },
      () => Date.parse("2026-01-01T00:01:00Z"),
    );
    const pod = (time: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a", namespace: "shop", managedFields: [at(time)] },
    });
    cluster.apply(pod("2026-01-01T00:00:00Z"));
    cluster.apply(pod("2026-01-01T00:00:30Z"));
    cluster.resync();
    cluster.apply({ ...pod("2026-01-01T00:00:40Z"), kind: "ReplicaSet", apiVersion: "apps/v1" });
    cluster.apply({ ...pod("2026-01-01T00:00:50Z"), kind: "ReplicaSet", apiVersion: "apps/v1" });
    expect(seen).toEqual(["Pod 30"]);
  });
});
