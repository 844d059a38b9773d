import {
  clone,
  DestinationProfileSchema,
  tcpAddressFromString,
  WeightedAddrSchema,
} from "@destination/proto";
import { describe, expect, it } from "vitest";
import {
  addUpdate,
  booksProfile,
  meshedPod,
  opaquePod,
  removeUpdate,
} from "../../test/support/sample-messages.js";
import { diffEndpoints, diffProfiles } from "./authority-audit.js";

const addresses = (list: readonly { address: string }[]) => list.map((d) => d.address);

describe("diffEndpoints", () => {
  it("finds nothing between equal answers, whatever the label order", () => {
    const reordered = clone(WeightedAddrSchema, meshedPod);
    reordered.metricLabels = Object.fromEntries(Object.entries(meshedPod.metricLabels).reverse());
    expect(diffEndpoints(addUpdate([meshedPod]), addUpdate([reordered]))).toEqual({
      missing: [],
      extra: [],
      changed: [],
    });
  });

  it("names missing, extra and changed endpoints, with the fields that differ", () => {
    const otherZone = clone(WeightedAddrSchema, meshedPod);
    otherZone.metricLabels = { ...meshedPod.metricLabels, zone: "zone-b" };
    otherZone.protocolHint = undefined;
    const extra = clone(WeightedAddrSchema, meshedPod);
    extra.addr = tcpAddressFromString("10.244.0.99:8080");
    const diff = diffEndpoints(addUpdate([meshedPod, opaquePod]), addUpdate([otherZone, extra]));
    expect(addresses(diff.missing)).toEqual(["10.244.0.9:3306"]);
    expect(addresses(diff.extra)).toEqual(["10.244.0.99:8080"]);
    expect(diff.changed).toMatchObject([
      { address: "10.244.0.12:8080", fields: ["metricLabels", "protocolHint"] },
    ]);
  });

  it("treats a silent stream as no endpoints, and folds a remove as a proxy does", () => {
    expect(addresses(diffEndpoints(addUpdate([meshedPod]), undefined).missing)).toEqual([
      "10.244.0.12:8080",
    ]);
    expect(diffEndpoints(undefined, removeUpdate(meshedPod)).extra).toEqual([]);
  });
});

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
