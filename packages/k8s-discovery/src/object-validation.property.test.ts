import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as yaml from "yaml";
import { parseManifest } from "./manifests/manifest-documents.js";
import { MemoryCluster } from "./memory/memory-cluster.js";
import { objectProblem } from "./object-validation.js";
import { RESOURCE_KINDS, type ResourceKind } from "./resource-kind.js";

const KINDS = Object.keys(RESOURCE_KINDS) as ResourceKind[];
const SETTINGS = { numRuns: 2000, seed: 20261201 };

/** Objects of a cached kind whose metadata and other fields are anything at all. */
const object = fc.record({
  kind: fc.constantFrom(...KINDS),
  metadata: fc.oneof(
    fc.record({ name: fc.oneof(fc.constantFrom("a", "b"), fc.anything()), labels: fc.anything() }),
    fc.anything(),
  ),
  spec: fc.anything(),
  status: fc.anything(),
  endpoints: fc.anything(),
  subsets: fc.anything(),
});

describe("validation of arbitrary input", () => {
  it("objectProblem never throws, whatever the value", () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), fc.anything(), (kind, value) => {
        const problem = objectProblem(kind, value);
        expect(problem === undefined || typeof problem === "string").toBe(true);
      }),
      SETTINGS,
    );
  });

  it("a MemoryCluster fed anything never throws and stores only valid objects", () => {
    fc.assert(
      fc.property(fc.array(object, { maxLength: 8 }), (objects) => {
        const cluster = new MemoryCluster();
        for (const obj of objects) cluster.apply(obj as never);
        cluster.replace("Pod", objects.filter((o) => o.kind === "Pod") as never);
        for (const kind of KINDS) {
          for (const stored of cluster.cache(kind).list()) {
            expect(objectProblem(kind, stored)).toBeUndefined();
          }
        }
      }),
      SETTINGS,
    );
  });

  it("parseManifest never throws on any text and returns only valid objects", () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b).toString("utf8")),
      fc
        .array(object, { maxLength: 4 })
        .map((docs) =>
          docs.map((d) => JSON.stringify({ apiVersion: "v1", ...d }) ?? "null").join("\n---\n"),
        ),
    );
    fc.assert(
      fc.property(text, fc.constantFrom("yaml" as const, "json" as const), (input, format) => {
        for (const { kind, object: parsed } of parseManifest(input, format, yaml).objects) {
          expect(objectProblem(kind, parsed)).toBeUndefined();
        }
      }),
      SETTINGS,
    );
  });
});
