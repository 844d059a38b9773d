import { describe, expect, it } from "vitest";
import { existingSlice, service } from "../test/support/objects.js";
import { SliceTracker } from "./slice-tracker.js";

const svc = service("web");
const slice = (uid: string, generation: number) => {
  const s = existingSlice(svc, "IPv4", []);
  s.metadata.uid = uid;
  s.metadata.generation = generation;
  return s;
};

describe("SliceTracker", () => {
  it("takes the cache's echo of a write for our own, and a newer generation for someone else's", () => {
    const tracker = new SliceTracker();
    tracker.update(slice("a", 2));
    expect(tracker.shouldSync(slice("a", 2))).toBe(false);
    expect(tracker.shouldSync(slice("a", 3))).toBe(true);
    expect(tracker.shouldSync(slice("b", 1))).toBe(true);
  });

  it("finds the cache stale when it is behind a write, still has a deleted slice, or misses a written one", () => {
    const tracker = new SliceTracker();
    tracker.update(slice("a", 2));
    expect(tracker.staleSlices("ns", "web", [slice("a", 1)])).toBe(true);
    expect(tracker.staleSlices("ns", "web", [])).toBe(true);
    expect(tracker.staleSlices("ns", "web", [slice("a", 2)])).toBe(false);
    tracker.expectDeletion(slice("a", 2));
    expect(tracker.staleSlices("ns", "web", [slice("a", 2)])).toBe(true);
    expect(tracker.staleSlices("ns", "web", [])).toBe(false);
  });

  it("tells our own deletes from someone else's", () => {
    const tracker = new SliceTracker();
    tracker.expectDeletion(slice("a", 1));
    tracker.update(slice("b", 1));
    expect(tracker.handleDeletion(slice("a", 1))).toBe(true);
    expect(tracker.handleDeletion(slice("b", 1))).toBe(false);
    expect(tracker.has(slice("b", 1))).toBe(false);
  });

  it("forgets a deleted Service", () => {
    const tracker = new SliceTracker();
    tracker.update(slice("a", 1));
    tracker.deleteService("ns", "web");
    expect(tracker.staleSlices("ns", "web", [])).toBe(false);
  });
});
