import {
  create,
  HttpMethodSchema,
  RequestMatchSchema,
  ResponseMatchSchema,
  toBinary,
  toJson,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import { TranslationError } from "../contracts.js";
import { toHttpMethod, toRequestMatch, toResponseMatch } from "./conditions.js";

const requestJson = (m: Parameters<typeof toRequestMatch>[0]) =>
  toJson(RequestMatchSchema, toRequestMatch(m));

describe("toRequestMatch", () => {
  it("turns method and path into all{method, path}, method first", () => {
    expect(requestJson({ method: "GET", pathRegex: "/my/path" })).toEqual({
      all: { matches: [{ method: { registered: "GET" } }, { path: { regex: "/my/path" } }] },
    });
  });

  it("uses a single field as the match itself, the path regex verbatim", () => {
    expect(requestJson({ pathRegex: "^/api/(v1|v2)/.*" })).toEqual({
      path: { regex: "^/api/(v1|v2)/.*" },
    });
  });

  it("orders the fields all, any, method, not, path whatever the object's key order", () => {
    expect(
      requestJson({
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
    expect(requestJson({ all: [] })).toEqual({ all: {} });
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

const responseJson = (m: Parameters<typeof toResponseMatch>[0]) =>
  toJson(ResponseMatchSchema, toResponseMatch(m));

describe("toResponseMatch", () => {
  it("copies a status range verbatim", () => {
    expect(responseJson({ status: { min: 500, max: 599 } })).toEqual({
      status: { min: 500, max: 599 },
    });
    expect(responseJson({ status: { min: 404 } })).toEqual({ status: { min: 404 } });
  });

  it("accepts an empty status range as a set field (present but empty)", () => {
    expect(responseJson({ status: {} })).toEqual({ status: {} });
  });

  it("orders the fields all, any, status, not", () => {
    expect(
      responseJson({
        not: { status: { min: 200, max: 299 } },
        status: { min: 500 },
        any: [{ status: { max: 404 } }],
        all: [],
      }),
    ).toEqual({
      all: {
        matches: [
          { all: {} },
          { any: { matches: [{ status: { max: 404 } }] } },
          { status: { min: 500 } },
          { not: { status: { min: 200, max: 299 } } },
        ],
      },
    });
  });

  it.each([
    [{}, "A response match must have a field set"],
    [{ status: null, not: null }, "A response match must have a field set"],
    [{ all: [null] }, 'null condition "all"'],
    [{ any: [null] }, 'null condition "any"'],
    [{ status: { min: 99 } }, "Range minimum must be between 100 and 599, inclusive"],
    [{ status: { min: 600, max: 700 } }, "Range minimum must be between 100 and 599, inclusive"],
    [{ status: { max: 600 } }, "Range maximum must be between 100 and 599, inclusive"],
    [{ status: { min: 100, max: 99 } }, "Range maximum must be between 100 and 599, inclusive"],
    [{ status: { min: 500, max: 499 } }, "Range maximum cannot be smaller than minimum"],
    [{ not: { status: { min: 1 } } }, "Range minimum must be between 100 and 599, inclusive"],
    [null, "missing response match"],
  ])("rejects %j: %s", (condition, message) => {
    expect(() => toResponseMatch(condition as Parameters<typeof toResponseMatch>[0])).toThrow(
      new TranslationError(message),
    );
  });
});
