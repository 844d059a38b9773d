import { describe, expect, it } from "vitest";
import type { Pod } from "./objects/core.js";
import type { OwnerReference, PartialObjectMetadata } from "./objects/meta.js";
import { type OwnerMetadataLookup, resolvePodOwner } from "./owner.js";

const pod = (ownerReferences?: OwnerReference[]): Pod => ({
  metadata: {
    name: "web-5d4f-abcde",
    namespace: "shop",
    ...(ownerReferences ? { ownerReferences } : {}),
  },
});
const ref = (kind: string, name: string): OwnerReference => ({ kind, name });
const meta = (name: string, ownerReferences: OwnerReference[]): PartialObjectMetadata => ({
  metadata: { name, namespace: "shop", ownerReferences },
});

/** A metadata cache holding these objects by kind/namespace/name. */
function cache(objects: Record<string, PartialObjectMetadata>): OwnerMetadataLookup {
  return (kind, namespace, name) => objects[`${kind}/${namespace}/${name}`];
}
const empty = cache({});

describe("resolvePodOwner", () => {
  it("resolves pod → ReplicaSet → Deployment through the ReplicaSet cache", () => {
    const lookup = cache({
      "ReplicaSet/shop/web-5d4f": meta("web-5d4f", [ref("Deployment", "web")]),
    });
    expect(resolvePodOwner(pod([ref("ReplicaSet", "web-5d4f")]), lookup)).toEqual({
      kind: "deployment",
      name: "web",
    });
  });

  it("resolves pod → Job → CronJob through the Job cache", () => {
    const lookup = cache({ "Job/shop/report-1": meta("report-1", [ref("CronJob", "report")]) });
    expect(resolvePodOwner(pod([ref("Job", "report-1")]), lookup)).toEqual({
      kind: "cronjob",
      name: "report",
    });
  });

  it("falls back to the ReplicaSet's or Job's own name when it is not cached, as upstream", () => {
    expect(resolvePodOwner(pod([ref("ReplicaSet", "web-5d4f")]), empty)).toEqual({
      kind: "replicaset",
      name: "web-5d4f",
    });
    expect(resolvePodOwner(pod([ref("Job", "report-1")]), empty)).toEqual({
      kind: "job",
      name: "report-1",
    });
  });

  it("stays at a bare Job, whose parent is not a single owner", () => {
    const lookup = cache({ "Job/shop/once": meta("once", []) });
    expect(resolvePodOwner(pod([ref("Job", "once")]), lookup)).toEqual({
      kind: "job",
      name: "once",
    });
  });

  it("is the pod itself without owners or with more than one (ambiguous)", () => {
    expect(resolvePodOwner(pod(), empty)).toEqual({ kind: "pod", name: "web-5d4f-abcde" });
    expect(resolvePodOwner(pod([]), empty)).toEqual({ kind: "pod", name: "web-5d4f-abcde" });
    expect(resolvePodOwner(pod([ref("ReplicaSet", "a"), ref("ReplicaSet", "b")]), empty)).toEqual({
      kind: "pod",
      name: "web-5d4f-abcde",
    });
  });

  it("stops at the ReplicaSet when its parent is not a workload kind, or not a single one", () => {
    const lookup = cache({
      "ReplicaSet/shop/by-rollout": meta("by-rollout", [ref("Rollout", "web")]),
      "ReplicaSet/shop/two": meta("two", [ref("Deployment", "a"), ref("Deployment", "b")]),
    });
    expect(resolvePodOwner(pod([ref("ReplicaSet", "by-rollout")]), lookup)).toEqual({
      kind: "replicaset",
      name: "by-rollout",
    });
    expect(resolvePodOwner(pod([ref("ReplicaSet", "two")]), lookup)).toEqual({
      kind: "replicaset",
      name: "two",
    });
  });

  it("lower-cases any other direct owner, CRD kinds included", () => {
    expect(resolvePodOwner(pod([ref("StatefulSet", "db")]), empty)).toEqual({
      kind: "statefulset",
      name: "db",
    });
    expect(resolvePodOwner(pod([ref("CloneSet", "web")]), empty)).toEqual({
      kind: "cloneset",
      name: "web",
    });
  });
});
