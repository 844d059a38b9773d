import { describe, expect, it } from "vitest";
import { WatchPosition } from "./watch-position.js";

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
