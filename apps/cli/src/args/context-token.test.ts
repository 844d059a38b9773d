import { describe, expect, it } from "vitest";
import { buildContextToken } from "./context-token.js";

describe("buildContextToken", () => {
  it("is empty without parts, so the server sees no token", () => {
    expect(buildContextToken({})).toBe("");
  });

  it("writes all three keys in the injector's order", () => {
    expect(buildContextToken({ pod: "web-1", nodeName: "node-a", ns: "emojivoto" })).toBe(
      '{"ns":"emojivoto","nodeName":"node-a","pod":"web-1"}',
    );
  });

  it("writes only the given keys and escapes values as JSON", () => {
    expect(buildContextToken({ nodeName: 'n"1' })).toBe('{"nodeName":"n\\"1"}');
    expect(buildContextToken({ ns: "" })).toBe('{"ns":""}');
  });
});
