import { clone, DestinationProfileSchema } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { booksProfile } from "../../test/support/sample-messages.js";
import { diffProfiles } from "./profile-diff.js";

describe("diffProfiles", () => {
  it("finds nothing between equal profiles, and names the fields that differ", () => {
    expect(diffProfiles(booksProfile, clone(DestinationProfileSchema, booksProfile))).toEqual([]);
    const opaque = clone(DestinationProfileSchema, booksProfile);
    opaque.opaqueProtocol = !booksProfile.opaqueProtocol;
    opaque.routes = [];
    expect(diffProfiles(booksProfile, opaque)).toEqual(["opaqueProtocol", "routes"]);
  });

  it("tells a silent stream from any profile", () => {
    expect(diffProfiles(undefined, undefined)).toEqual([]);
    expect(diffProfiles(booksProfile, undefined).length).toBeGreaterThan(0);
    expect(diffProfiles(undefined, booksProfile).length).toBeGreaterThan(0);
  });
});
