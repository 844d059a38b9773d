import { describe, expect, it } from "vitest";
import { compileSelector, InvalidSelectorError, selectorMatches } from "./label-selector.js";
import type { LabelSelector } from "./objects/meta.js";

const web = { app: "web", tier: "front" };

describe("label selectors, with Kubernetes semantics", () => {
  it("selects nothing when the selector is null or absent", () => {
    expect(selectorMatches(null, web)).toBe(false);
    expect(selectorMatches(undefined, web)).toBe(false);
    expect(selectorMatches(undefined, {})).toBe(false);
  });

  it("selects everything, unlabelled objects too, when the selector is empty", () => {
    for (const empty of [{}, { matchLabels: {} }, { matchLabels: null, matchExpressions: [] }]) {
      expect(selectorMatches(empty, web)).toBe(true);
      expect(selectorMatches(empty, {})).toBe(true);
      expect(selectorMatches(empty, null)).toBe(true);
    }
  });

  it("requires every matchLabels entry", () => {
    const selector = { matchLabels: { app: "web", tier: "front" } };
    expect(selectorMatches(selector, web)).toBe(true);
    expect(selectorMatches(selector, { app: "web" })).toBe(false);
    expect(selectorMatches(selector, { app: "web", tier: "back" })).toBe(false);
    expect(selectorMatches(selector, null)).toBe(false);
  });

  it("matches an empty label value only when the label is there", () => {
    const selector = { matchLabels: { canary: "" } };
    expect(selectorMatches(selector, { canary: "" })).toBe(true);
    expect(selectorMatches(selector, {})).toBe(false);
  });

  it("treats inherited object properties as absent labels", () => {
    expect(
      selectorMatches({ matchExpressions: [{ key: "constructor", operator: "Exists" }] }, {}),
    ).toBe(false);
    expect(selectorMatches({ matchLabels: { toString: "x" } }, {})).toBe(false);
  });

  it("applies In, NotIn, Exists and DoesNotExist as Kubernetes does", () => {
    const expr = (operator: string, values?: string[]): LabelSelector => ({
      matchExpressions: [{ key: "tier", operator, ...(values ? { values } : {}) }],
    });
    expect(selectorMatches(expr("In", ["front", "edge"]), web)).toBe(true);
    expect(selectorMatches(expr("In", ["back"]), web)).toBe(false);
    expect(selectorMatches(expr("In", ["front"]), { app: "web" })).toBe(false);
    expect(selectorMatches(expr("NotIn", ["back"]), web)).toBe(true);
    expect(selectorMatches(expr("NotIn", ["front"]), web)).toBe(false);
    // NotIn also selects objects without the label at all.
    expect(selectorMatches(expr("NotIn", ["front"]), { app: "web" })).toBe(true);
    expect(selectorMatches(expr("Exists"), web)).toBe(true);
    expect(selectorMatches(expr("Exists"), { app: "web" })).toBe(false);
    expect(selectorMatches(expr("DoesNotExist"), web)).toBe(false);
    expect(selectorMatches(expr("DoesNotExist"), { app: "web" })).toBe(true);
  });

  it("ANDs matchLabels with every expression", () => {
    const selector: LabelSelector = {
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["front"] },
        { key: "canary", operator: "DoesNotExist" },
      ],
    };
    expect(selectorMatches(selector, web)).toBe(true);
    expect(selectorMatches(selector, { ...web, canary: "true" })).toBe(false);
    expect(selectorMatches(selector, { ...web, app: "api" })).toBe(false);
  });

  it.each<[string, LabelSelector]>([
    ["In without values", { matchExpressions: [{ key: "a", operator: "In", values: [] }] }],
    ["NotIn without values", { matchExpressions: [{ key: "a", operator: "NotIn" }] }],
    ["Exists with values", { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }],
    [
      "DoesNotExist with values",
      { matchExpressions: [{ key: "a", operator: "DoesNotExist", values: ["x"] }] },
    ],
    ["an unknown operator", { matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] }],
    ["a key with a space", { matchLabels: { "my app": "web" } }],
    ["a key with an upper-case prefix", { matchLabels: { "Example.com/app": "web" } }],
    ["a key name over 63 characters", { matchLabels: { ["k".repeat(64)]: "web" } }],
    ["a value with a slash", { matchLabels: { app: "web/v1" } }],
    [
      "a value over 63 characters",
      { matchExpressions: [{ key: "a", operator: "In", values: ["v".repeat(64)] }] },
    ],
  ])("rejects %s", (_what, selector) => {
    expect(() => compileSelector(selector)).toThrow(InvalidSelectorError);
  });

  it("accepts prefixed keys and the characters Kubernetes allows", () => {
    const selector = { matchLabels: { "app.kubernetes.io/name": "web_v1.2-x" } };
    expect(selectorMatches(selector, { "app.kubernetes.io/name": "web_v1.2-x" })).toBe(true);
  });
});
