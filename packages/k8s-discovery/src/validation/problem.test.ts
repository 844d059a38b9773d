import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { schemaProblem } from "./problem.js";

const notANumber = (value: unknown) => schemaProblem(v.number(), value);

describe("schemaProblem", () => {
  it("returns undefined for a passing value", () => {
    expect(schemaProblem(v.object({ port: v.number() }), { port: 80, extra: "x" })).toBeUndefined();
  });

  it("quotes strings without escaping, prints numbers bare and objects by constructor", () => {
    expect(notANumber('say "hi"\n')).toBe('the object: expected number, got "say "hi"\n"');
    expect(schemaProblem(v.string(), -0)).toBe("the object: expected string, got 0");
    expect(schemaProblem(v.string(), 1e21)).toBe("the object: expected string, got 1e+21");
    expect(notANumber(7n)).toBe("the object: expected number, got 7");
    expect(notANumber(true)).toBe("the object: expected number, got true");
    expect(notANumber(null)).toBe("the object: expected number, got null");
    expect(notANumber([])).toBe("the object: expected number, got Array");
    expect(notANumber(new Map())).toBe("the object: expected number, got Map");
    expect(notANumber(Object.create(null))).toBe("the object: expected number, got null");
    expect(notANumber(new (class Route {})())).toBe("the object: expected number, got Route");
    expect(notANumber(() => 1)).toBe("the object: expected number, got Function");
    expect(notANumber(Symbol("s"))).toBe("the object: expected number, got symbol");
  });

  it("joins keys from the root, with indexes in brackets", () => {
    const schema = v.object({ spec: v.object({ ports: v.array(v.object({ port: v.number() })) }) });
    expect(schemaProblem(schema, { spec: { ports: [{ port: "80" }] } })).toBe(
      'spec.ports[0].port: expected number, got "80"',
    );
  });

  it("calls the root the object and an absent value missing", () => {
    expect(schemaProblem(v.object({}), undefined)).toBe("the object: missing");
    expect(schemaProblem(v.object({ name: v.string() }), {})).toBe("name: missing");
  });

  it("keeps the message of a value of the right type that fails a further test", () => {
    const even = v.pipe(
      v.number(),
      v.check((n) => n % 2 === 0, "odd"),
    );
    expect(schemaProblem(even, 3)).toBe("the object: odd");
    expect(schemaProblem(even, "3")).toBe('the object: expected number, got "3"');
  });

  it("cuts the message, not the path, after 160 characters", () => {
    const path = "p".repeat(200);
    const long = v.object({ [path]: v.custom(() => false, "m".repeat(161)) });
    expect(schemaProblem(long, { [path]: 1 })).toBe(`${path}: ${"m".repeat(160)}…`);
    const exact = v.custom(() => false, "m".repeat(160));
    expect(schemaProblem(exact, 1)).toBe(`the object: ${"m".repeat(160)}`);
  });
});
