import { describe, expect, it } from "vitest";
import {
  isGone,
  parseWatchEvent,
  toStatus,
  WatchEventDecodeError,
  WatchPosition,
} from "./watch-event.js";

describe("parseWatchEvent", () => {
  it("reads object events with their object", () => {
    const event = parseWatchEvent(
      '{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"7"}}}',
    );
    expect(event).toEqual({
      type: "MODIFIED",
      object: { kind: "Pod", metadata: { name: "a", resourceVersion: "7" } },
    });
  });

  it("reads a bookmark as its resourceVersion", () => {
    expect(
      parseWatchEvent(
        '{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12"}}}',
      ),
    ).toEqual({ type: "BOOKMARK", resourceVersion: "12" });
  });

  it("reads an ERROR event's Status", () => {
    const event = parseWatchEvent(
      '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}}',
    );
    expect(event).toEqual({
      type: "ERROR",
      status: { code: 410, reason: "Expired", message: "too old resource version: 1 (5)" },
    });
    expect(event.type === "ERROR" && isGone(event.status)).toBe(true);
  });

  it.each([
    ["not JSON", "{nope", /not JSON/],
    ["no object", '{"type":"ADDED"}', /not a watch event/],
    ["an unknown type", '{"type":"SURPRISE","object":{}}', /unknown watch event type/],
    [
      "an object event without a name",
      '{"type":"ADDED","object":{"metadata":{}}}',
      /without a name/,
    ],
    [
      "a bookmark without a version",
      '{"type":"BOOKMARK","object":{"metadata":{}}}',
      /without a resourceVersion/,
    ],
  ])("rejects %s", (_what, line, message) => {
    expect(() => parseWatchEvent(line)).toThrow(WatchEventDecodeError);
    expect(() => parseWatchEvent(line)).toThrow(message);
  });
});

describe("isGone", () => {
  it("recognises 410 by code or by reason, and nothing else", () => {
    expect(isGone({ code: 410 })).toBe(true);
    expect(isGone({ reason: "Expired" })).toBe(true);
    expect(isGone({ reason: "Gone" })).toBe(true);
    expect(isGone({ code: 500, reason: "InternalError" })).toBe(false);
    expect(isGone({})).toBe(false);
  });
});

describe("toStatus", () => {
  it("keeps the type of each cause, as a refused create in a terminating namespace gives it", () => {
    const status = toStatus({
      kind: "Status",
      code: 403,
      reason: "Forbidden",
      message:
        'endpointslices "x" is forbidden: unable to create new content in namespace shop because it is being terminated',
      details: {
        causes: [{ type: "NamespaceTerminating", message: "namespace shop is being terminated" }],
      },
    });
    expect(status).toEqual({
      code: 403,
      reason: "Forbidden",
      message:
        'endpointslices "x" is forbidden: unable to create new content in namespace shop because it is being terminated',
      causes: ["NamespaceTerminating"],
    });
    expect(toStatus({ code: 404, details: { name: "x" } })).toEqual({ code: 404 });
  });
});

const event = (type: "ADDED" | "MODIFIED" | "DELETED", resourceVersion?: string) => ({
  type,
  object: { metadata: { name: "a", ...(resourceVersion ? { resourceVersion } : {}) } },
});

describe("WatchPosition", () => {
  it("must list first, then watches from the list's version", () => {
    const position = new WatchPosition();
    expect(position.mustList).toBe(true);
    position.listed("100");
    expect(position.mustList).toBe(false);
    expect(position.resourceVersion).toBe("100");
  });

  it("follows object events and bookmarks, so a new watch resumes after the last one seen", () => {
    const position = new WatchPosition();
    position.listed("100");
    position.observed(event("ADDED", "101"));
    position.observed(event("DELETED", "103"));
    expect(position.resourceVersion).toBe("103");
    position.observed({ type: "BOOKMARK", resourceVersion: "250" });
    expect(position.resourceVersion).toBe("250");
  });

  it("keeps its place on errors and on events without a version", () => {
    const position = new WatchPosition();
    position.listed("100");
    position.observed({ type: "ERROR", status: { code: 500 } });
    position.observed(event("MODIFIED"));
    expect(position.resourceVersion).toBe("100");
  });

  it("must list again once the version expired (410), and after a list without a version", () => {
    const position = new WatchPosition();
    position.listed("100");
    position.expired();
    expect(position.mustList).toBe(true);
    expect(position.resourceVersion).toBeUndefined();
    position.listed("");
    expect(position.mustList).toBe(true);
  });
});
