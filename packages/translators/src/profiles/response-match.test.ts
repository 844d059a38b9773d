import { ResponseMatchSchema, toJson } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { TranslationError } from "../translation-error.js";
import { toResponseMatch } from "./response-match.js";

const json = (m: Parameters<typeof toResponseMatch>[0]) =>
  toJson(ResponseMatchSchema, toResponseMatch(m));

describe("toResponseMatch", () => {
  it("copies a status range verbatim", () => {
    expect(json({ status: { min: 500, max: 599 } })).toEqual({ status: { min: 500, max: 599 } });
    expect(json({ status: { min: 404 } })).toEqual({ status: { min: 404 } });
  });

  it("accepts an empty status range as a set field (present but empty)", () => {
    expect(json({ status: {} })).toEqual({ status: {} });
  });

  it("orders the fields all, any, status, not", () => {
    expect(
      json({
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
