import {
  create,
  HttpMethod_Registered,
  type RequestMatch,
  RequestMatchSchema,
  type ResponseMatch,
  ResponseMatchSchema,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import { requestMatchText, responseMatchText } from "./match-text.js";

const path = (regex: string): RequestMatch =>
  create(RequestMatchSchema, { match: { case: "path", value: { regex } } });
const method = (m: HttpMethod_Registered): RequestMatch =>
  create(RequestMatchSchema, {
    match: { case: "method", value: { type: { case: "registered", value: m } } },
  });
const all = (...matches: RequestMatch[]) =>
  create(RequestMatchSchema, { match: { case: "all", value: { matches } } });
const status = (min: number, max: number): ResponseMatch =>
  create(ResponseMatchSchema, { match: { case: "status", value: { min, max } } });

describe("requestMatchText", () => {
  it("reads method + path as a request line", () => {
    expect(requestMatchText(all(method(HttpMethod_Registered.GET), path("/books/[^/]*")))).toBe(
      "GET /books/[^/]*",
    );
  });

  it("spells out nesting with all/any/not", () => {
    const nested = all(
      path("/api/.*"),
      create(RequestMatchSchema, {
        match: { case: "not", value: method(HttpMethod_Registered.DELETE) },
      }),
    );
    expect(requestMatchText(nested)).toBe("all(/api/.*, not(DELETE))");
    expect(
      requestMatchText(
        create(RequestMatchSchema, {
          match: {
            case: "any",
            value: { matches: [method(HttpMethod_Registered.PUT), path("/x")] },
          },
        }),
      ),
    ).toBe("any(PUT, /x)");
    expect(requestMatchText(all())).toBe("all()");
    expect(requestMatchText(path(""))).toBe('path ""');
    expect(requestMatchText(undefined)).toBe("(no condition)");
  });
});

describe("responseMatchText", () => {
  it.each([
    [500, 599, "status 500-599"],
    [404, 404, "status 404"],
    [500, 0, "status >=500"],
    [0, 299, "status <=299"],
    [0, 0, "any status"],
  ])("%d..%d → %s", (min, max, text) => {
    expect(responseMatchText(status(min, max))).toBe(text);
  });

  it("spells out nesting", () => {
    const notServerError = create(ResponseMatchSchema, {
      match: { case: "not", value: status(500, 599) },
    });
    const either = create(ResponseMatchSchema, {
      match: { case: "any", value: { matches: [status(429, 429), notServerError] } },
    });
    expect(responseMatchText(either)).toBe("any(status 429, not(status 500-599))");
  });
});
