import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { keptAs, keptWhole, projectBySchema } from "./schema-projection.js";

const port = v.object({ name: v.optional(v.string()), port: v.number() });
const named = v.object({
  spec: v.nullish(v.object({ ports: v.nullish(v.array(port)), type: v.optional(v.string()) })),
});
const counted = keptAs(
  v.nullish(v.array(v.string())),
  (list) => (list as string[]).length || undefined,
);
const whole = keptWhole(
  v.object({ meta: v.object({ count: counted }), items: v.nullish(v.array(port)) }),
);

describe("projectBySchema", () => {
  it("keeps of an object exactly the fields its schema names, recursively, absent ones absent", () => {
    const value = { spec: { type: "A", extra: 1, ports: [{ port: 80, other: true }] }, status: {} };
    expect(projectBySchema(named, value)).toStrictEqual({
      spec: { type: "A", ports: [{ port: 80 }] },
    });
  });

  it("keeps null, and a value of the wrong shape as it came, for validation to name", () => {
    expect(projectBySchema(named, { spec: null })).toStrictEqual({ spec: null });
    expect(projectBySchema(named, { spec: { ports: "80" } })).toStrictEqual({
      spec: { ports: "80" },
    });
    expect(projectBySchema(named, { spec: "x" })).toStrictEqual({ spec: "x" });
  });

  it("keeps a kept-whole object as it came, the same object when no keptAs field changes", () => {
    const value = { meta: { other: 1 }, items: [{ port: 1, other: 2 }], more: true };
    expect(projectBySchema(whole, value)).toBe(value);
  });

  it("replaces a keptAs field by what its function gives, leaving it out for undefined", () => {
    const value = { meta: { count: ["a", "b"], other: 1 }, more: true };
    const out = projectBySchema(whole, value);
    expect(out).toStrictEqual({ meta: { count: 2, other: 1 }, more: true });
    expect(value.meta.count).toEqual(["a", "b"]);
    expect(projectBySchema(whole, { meta: { count: [], other: 1 } })).toStrictEqual({
      meta: { other: 1 },
    });
  });
});
