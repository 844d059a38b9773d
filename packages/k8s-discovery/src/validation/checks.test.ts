import { describe, expect, it } from "vitest";
import {
  boolean,
  type Check,
  integer,
  list,
  looseObject,
  nonEmptyString,
  nullish,
  number,
  optional,
  refine,
  string,
  stringMap,
  union,
  unknown,
} from "./checks.js";

const text = (check: Check, value: unknown) => check.problem(value)?.toString();

describe("checks", () => {
  it("return undefined, not a result object, for a passing value", () => {
    const schema = looseObject({
      name: nonEmptyString,
      ports: list(looseObject({ port: integer, name: nullish(string) })),
      labels: nullish(stringMap),
      ready: optional(boolean),
      extra: unknown,
    });
    const value = { name: "a", ports: [{ port: 1 }, { port: 2, name: null }], labels: { a: "b" } };
    expect(schema.problem(value)).toBeUndefined();
  });

  it("name the scalar they expect and what they got", () => {
    expect(text(string, 1)).toBe("the object: expected string, got 1");
    expect(text(boolean, "true")).toBe('the object: expected boolean, got "true"');
    expect(text(number, Number.NaN)).toBe("the object: expected number, got NaN");
    expect(text(integer, -0.5)).toBe("the object: Invalid integer: Received -0.5");
    expect(text(nonEmptyString, "")).toBe("the object: Invalid length: Expected !0 but received 0");
    expect(text(string, undefined)).toBe("the object: missing");
  });

  it("let optional take undefined only and nullish take null too", () => {
    expect(optional(string).problem(undefined)).toBeUndefined();
    expect(text(optional(string), null)).toBe("the object: expected string, got null");
    expect(nullish(string).problem(null)).toBeUndefined();
    expect(optional(string).expects).toBe("(string | undefined)");
    expect(nullish(string).expects).toBe("(string | null | undefined)");
  });

  it("put indexes and keys into the path", () => {
    const schema = looseObject({ a: list(looseObject({ b: stringMap })) });
    expect(text(schema, { a: [{ b: {} }, { b: { "c.d": 1 } }] })).toBe(
      "a[1].b.c.d: expected string, got 1",
    );
    expect(text(schema, { a: [{}, null] })).toBe("a[0].b: missing");
    expect(text(schema, { a: [{ b: {} }, null] })).toBe("a[1]: expected Object, got null");
  });

  it("read an object's fields through its prototype chain", () => {
    const schema = looseObject({ name: string });
    expect(schema.problem(Object.create({ name: "inherited" }))).toBeUndefined();
    expect(schema.problem(Object.assign([], { name: "on an array" }))).toBeUndefined();
  });

  it("refine a check with a further test", () => {
    const even = refine<number>(
      number,
      (n) => n % 2 === 0,
      (n) => `${n} is odd`,
    );
    expect(even.problem(2)).toBeUndefined();
    expect(text(even, 3)).toBe("the object: 3 is odd");
    expect(text(even, "3")).toBe('the object: expected number, got "3"');
    expect(even.problem(3)?.refinement).toBe(true);
    expect(looseObject({ n: even }).problem({ n: 3 })?.refinement).toBe(false);
  });

  it("let a union name one refinement, one failing option, or what it expects", () => {
    const portOrName = union([integer, string]);
    expect(portOrName.expects).toBe("(number | string)");
    expect(union([string, string]).expects).toBe("string");
    expect(union([]).expects).toBe("never");
    expect(portOrName.problem(80)).toBeUndefined();
    expect(portOrName.problem("http")).toBeUndefined();
    expect(text(portOrName, 1.5)).toBe("the object: Invalid integer: Received 1.5");
    expect(text(portOrName, [])).toBe("the object: expected (number | string), got Array");
    expect(text(union([integer]), "x")).toBe('the object: expected number, got "x"');
    const twoRefinements = union([
      integer,
      refine<number>(
        number,
        () => false,
        () => "never",
      ),
    ]);
    expect(text(twoRefinements, 1.5)).toBe("the object: expected number, got 1.5");
  });
});
