import { create, HttpMethodSchema, RequestMatchSchema, toBinary, toJson } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { TranslationError } from "../translation-error.js";
import { toHttpMethod } from "./http-method.js";
import { toRequestMatch } from "./request-match.js";

const json = (m: Parameters<typeof toRequestMatch>[0]) =>
  toJson(RequestMatchSchema, toRequestMatch(m));

describe("toRequestMatch", () => {
  it("turns method and path into all{method, path}, method first", () => {
    expect(json({ method: "GET", pathRegex: "/my/path" })).toEqual({
      all: { matches: [{ method: { registered: "GET" } }, { path: { regex: "/my/path" } }] },
    });
  });

  it("uses a single field as the match itself, the path regex verbatim", () => {
    expect(json({ pathRegex: "^/api/(v1|v2)/.*" })).toEqual({
      path: { regex: "^/api/(v1|v2)/.*" },
    });
  });

  it("orders the fields all, any, method, not, path whatever the object's key order", () => {
    expect(
      json({
        pathRegex: "/p",
        not: { method: "POST" },
        method: "put",
        any: [{ pathRegex: "/a" }],
        all: [{ pathRegex: "/b" }],
      }),
    ).toEqual({
      all: {
        matches: [
          { all: { matches: [{ path: { regex: "/b" } }] } },
          { any: { matches: [{ path: { regex: "/a" } }] } },
          { method: { registered: "PUT" } },
          { not: { method: { registered: "POST" } } },
          { path: { regex: "/p" } },
        ],
      },
    });
  });

  it("counts a present but empty list as set, giving an empty sequence", () => {
    expect(json({ all: [] })).toEqual({ all: {} });
  });

  it("encodes GET, the enum's zero value, on the wire", () => {
    const match = toRequestMatch({ method: "GET" });
    // method (field 5) → HttpMethod{ registered (field 1) = 0 }
    expect([...toBinary(RequestMatchSchema, match)]).toEqual([0x2a, 0x02, 0x08, 0x00]);
  });

  it.each([
    [{}, "A request match must have a field set"],
    [{ method: "", pathRegex: "" }, "A request match must have a field set"],
    [{ all: null, any: null, not: null }, "A request match must have a field set"],
    [{ all: [null] }, 'null condition "all"'],
    [{ any: [{ method: "GET" }, null] }, 'null condition "any"'],
    [{ not: {} }, "A request match must have a field set"],
    [{ all: [{ any: [{}] }] }, "A request match must have a field set"],
    [null, "missing request match"],
    [undefined, "missing request match"],
  ])("rejects %j: %s", (condition, message) => {
    expect(() => toRequestMatch(condition as Parameters<typeof toRequestMatch>[0])).toThrow(
      new TranslationError(message),
    );
  });

  it("reports the first error in upstream's order (all before any)", () => {
    // The object type does not admit null children, but JSON does.
    const condition = { any: [null], all: [{}] } as unknown as Parameters<typeof toRequestMatch>[0];
    expect(() => toRequestMatch(condition)).toThrow("A request match must have a field set");
  });
});

describe("toHttpMethod", () => {
  it.each([
    ["GET", { registered: "GET" }],
    ["get", { registered: "GET" }],
    ["Options", { registered: "OPTIONS" }],
    ["trace", { registered: "TRACE" }],
    ["purge", { unregistered: "PURGE" }],
    // One code point at a time, as Go upper-cases: ß has no single-letter upper case.
    ["straße", { unregistered: "STRAßE" }],
  ])("%s → %j", (method, expected) => {
    expect(toJson(HttpMethodSchema, toHttpMethod(method))).toEqual(expected);
  });

  it("is a proto message of the http_types schema", () => {
    expect(toHttpMethod("GET")).toEqual(
      create(HttpMethodSchema, { type: { case: "registered", value: 0 } }),
    );
  });
});
