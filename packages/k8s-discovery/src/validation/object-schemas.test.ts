import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { schemaProblem } from "../object-validation.js";
import {
  nonEmptyString,
  optionalList,
  optionalPortOrName,
  optionalString,
  port,
  stringMap,
} from "./object-schemas.js";

describe("field schemas", () => {
  it("pass values of their type and name what they expect and what they got", () => {
    const schema = v.object({
      name: nonEmptyString,
      ports: v.array(v.object({ port, name: optionalString })),
      labels: v.nullish(stringMap),
    });
    const value = { name: "a", ports: [{ port: 1 }, { port: 2, name: null }], labels: { a: "b" } };
    expect(schemaProblem(schema, value)).toBeUndefined();
    expect(schemaProblem(port, Number.NaN)).toBe("the object: expected number, got NaN");
    expect(schemaProblem(port, -0.5)).toBe("the object: Invalid integer: Received -0.5");
    expect(schemaProblem(nonEmptyString, "")).toBe(
      "the object: Invalid length: Expected !0 but received 0",
    );
    expect(schemaProblem(nonEmptyString, undefined)).toBe("the object: missing");
  });

  it("let optional take undefined only and nullish take null too", () => {
    expect(schemaProblem(v.optional(v.string()), undefined)).toBeUndefined();
    expect(schemaProblem(v.optional(v.string()), null)).toBe(
      "the object: expected string, got null",
    );
    expect(schemaProblem(optionalString, null)).toBeUndefined();
    expect(schemaProblem(optionalList(v.string()), null)).toBeUndefined();
    expect(optionalString.expects).toBe("(string | null | undefined)");
  });

  it("put indexes and keys into the path", () => {
    const schema = v.object({ a: v.array(v.object({ b: stringMap })) });
    expect(schemaProblem(schema, { a: [{ b: {} }, { b: { "c.d": 1 } }] })).toBe(
      "a[1].b.c.d: expected string, got 1",
    );
    expect(schemaProblem(schema, { a: [{}, null] })).toBe("a[0].b: missing");
    expect(schemaProblem(schema, { a: [{ b: {} }, null] })).toBe("a[1]: expected Object, got null");
  });

  it("read an object's fields through its prototype chain, arrays included", () => {
    const schema = v.object({ name: v.string() });
    expect(schemaProblem(schema, Object.create({ name: "inherited" }))).toBeUndefined();
    expect(schemaProblem(schema, Object.assign([], { name: "on an array" }))).toBeUndefined();
  });

  it("refuse a map that is an array or not an object, and read only its own keys", () => {
    expect(schemaProblem(stringMap, ["a"])).toBe("the object: expected Object, got Array");
    expect(schemaProblem(stringMap, 5)).toBe("the object: expected Object, got 5");
    expect(schemaProblem(stringMap, Object.create({ inherited: 1 }))).toBeUndefined();
    expect(schemaProblem(stringMap, { constructor: 1, prototype: 2 })).toBeUndefined();
    expect(schemaProblem(stringMap, JSON.parse('{"__proto__": 1}'))).toBeUndefined();
  });

  it("let a port-or-name name one refinement, one failing option, or what it expects", () => {
    const portOrName = (value: unknown) => schemaProblem(optionalPortOrName, value);
    expect(portOrName(80)).toBeUndefined();
    expect(portOrName("http")).toBeUndefined();
    expect(portOrName(null)).toBeUndefined();
    expect(portOrName(1.5)).toBe("the object: Invalid integer: Received 1.5");
    expect(portOrName([])).toBe("the object: expected (number | string), got Array");
    expect(schemaProblem(v.union([port]), "x")).toBe('the object: expected number, got "x"');
    const never = v.pipe(
      v.number(),
      v.check(() => false, "never"),
    );
    expect(schemaProblem(v.union([port, never]), 1.5)).toBe("the object: expected number, got 1.5");
    // A field's refinement inside an object does not make the object a refinement.
    expect(schemaProblem(v.union([v.object({ n: never }), v.string()]), { n: 3 })).toBe(
      "the object: expected (Object | string), got Object",
    );
  });
});
