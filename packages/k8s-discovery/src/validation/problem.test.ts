import { describe, expect, it } from "vitest";
import { Problem, received, typeProblem } from "./problem.js";

describe("received", () => {
  it("quotes strings without escaping, prints numbers bare and objects by constructor", () => {
    expect(received('say "hi"\n')).toBe('"say "hi"\n"');
    expect(received(-0)).toBe("0");
    expect(received(1e21)).toBe("1e+21");
    expect(received(7n)).toBe("7");
    expect(received(true)).toBe("true");
    expect(received(null)).toBe("null");
    expect(received(undefined)).toBe("undefined");
    expect(received([])).toBe("Array");
    expect(received(new Map())).toBe("Map");
    expect(received(Object.create(null))).toBe("null");
    expect(received(new (class Route {})())).toBe("Route");
    expect(received(() => 1)).toBe("Function");
    expect(received(Symbol("s"))).toBe("symbol");
  });
});

describe("Problem", () => {
  it("joins keys from the root, with indexes in brackets", () => {
    const problem = typeProblem("number", "80").at("port").at(0).at("ports").at("spec");
    expect(problem.path).toBe("spec.ports[0].port");
    expect(problem.toString()).toBe('spec.ports[0].port: expected number, got "80"');
  });

  it("calls the root the object and an absent value missing", () => {
    expect(typeProblem("Object", undefined).toString()).toBe("the object: missing");
  });

  it("cuts the message, not the path, after 160 characters", () => {
    const long = "m".repeat(161);
    const path = "p".repeat(200);
    expect(new Problem(long, false).at(path).toString()).toBe(`${path}: ${"m".repeat(160)}…`);
    expect(new Problem("m".repeat(160), false).toString()).toBe(`the object: ${"m".repeat(160)}`);
  });
});
