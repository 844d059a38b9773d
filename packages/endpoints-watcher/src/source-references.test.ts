import { describe, expect, it } from "vitest";
import { type AddressSource, SourceReferences } from "./source-references.js";

const slice = (name: string): AddressSource => ({ kind: "EndpointSlice", namespace: "ns", name });

describe("SourceReferences", () => {
  it("keeps an object read by two sources until both have forgotten it", () => {
    const refs = new SourceReferences();
    const [a, b] = [slice("a"), slice("b")];
    refs.recorder(a)("Pod", "ns", "shared");
    refs.recorder(a)("Pod", "ns", "only-a");
    const noteB = refs.recorder(b);
    noteB("Pod", "ns", "shared");
    noteB("Pod", "ns", "shared");
    expect(refs.sourcesReading("Pod", "ns", "shared")).toEqual([a, b]);
    expect(refs.referenceCount).toBe(2);

    refs.forget(a);
    expect(refs.sourcesReading("Pod", "ns", "shared")).toEqual([b]);
    expect(refs.isRead("Pod", "ns", "only-a")).toBe(false);
    expect(refs.referenceCount).toBe(1);

    refs.forget(b);
    expect(refs.isRead("Pod", "ns", "shared")).toBe(false);
    expect(refs.referenceCount).toBe(0);
  });

  it("records again into a fresh entry once its source is forgotten", () => {
    const refs = new SourceReferences();
    const a = slice("a");
    const note = refs.recorder(a);
    note("Pod", "ns", "p");
    refs.forget(a);
    note("Pod", "ns", "p");
    expect(refs.sourcesReading("Pod", "ns", "p")).toEqual([a]);
    refs.forget(a);
    expect(refs.referenceCount).toBe(0);
  });

  it("tells the kinds apart and skips a repeated owner", () => {
    const refs = new SourceReferences();
    const a = slice("a");
    const note = refs.recorder(a);
    note("Pod", "ns", "web");
    note("ReplicaSet", "ns", "web");
    note("ReplicaSet", "ns", "web");
    expect(refs.sourcesReading("ReplicaSet", "ns", "web")).toEqual([a]);
    expect(refs.sourcesReading("Job", "ns", "web")).toEqual([]);
    expect(refs.referenceCount).toBe(2);
  });
});
