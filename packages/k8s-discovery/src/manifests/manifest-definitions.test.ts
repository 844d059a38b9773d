import type { KubeObject, Pod } from "@destination/core";
import { describe, expect, it } from "vitest";
import { ManifestDefinitions } from "./manifest-definitions.js";
import type { ManifestObject } from "./manifest-documents.js";

const pod = (name: string, ip: string, document = 1): ManifestObject => ({
  kind: "Pod",
  object: {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "shop" },
    status: { podIP: ip },
  } as KubeObject,
  location: { document },
});
const ips = (defs: ManifestDefinitions) =>
  defs
    .current()
    .map((d) => `${d.object.metadata.name}=${(d.object as Pod).status?.podIP}@${d.file}`);

describe("ManifestDefinitions", () => {
  it("lists objects in file order, files by path", () => {
    const defs = new ManifestDefinitions();
    defs.setFile("b.yaml", [pod("z", "1.1.1.1"), pod("y", "1.1.1.2")]);
    defs.setFile("a.yaml", [pod("x", "1.1.1.3")]);
    expect(ips(defs)).toEqual(["x=1.1.1.3@a.yaml", "z=1.1.1.1@b.yaml", "y=1.1.1.2@b.yaml"]);
  });

  it("lets the later write win between files, and hands back on removal", () => {
    const defs = new ManifestDefinitions();
    defs.setFile("a.yaml", [pod("web", "10.0.0.1")]);
    defs.setFile("b.yaml", [pod("web", "10.0.0.2")]);
    expect(ips(defs)).toEqual(["web=10.0.0.2@b.yaml"]);
    expect(defs.conflicts().map((c) => [c.winner.file, c.others.map((o) => o.file)])).toEqual([
      ["b.yaml", ["a.yaml"]],
    ]);
    defs.setFile("a.yaml", [pod("web", "10.0.0.3")]);
    expect(ips(defs)).toEqual(["web=10.0.0.3@a.yaml"]);
    defs.removeFile("a.yaml");
    expect(ips(defs)).toEqual(["web=10.0.0.2@b.yaml"]);
    expect(defs.conflicts()).toEqual([]);
  });

  it("does not let a file take over an object it saved unchanged", () => {
    const defs = new ManifestDefinitions();
    defs.setFile("a.yaml", [pod("web", "10.0.0.1"), pod("other", "10.0.0.5")]);
    defs.setFile("b.yaml", [pod("web", "10.0.0.2")]);
    defs.setFile("a.yaml", [pod("web", "10.0.0.1"), pod("other", "10.0.0.6")]);
    expect(ips(defs)).toContain("web=10.0.0.2@b.yaml");
  });

  it("keeps the later of two definitions in one file and reports the pair", () => {
    const defs = new ManifestDefinitions();
    const duplicates = defs.setFile("a.yaml", [
      pod("web", "10.0.0.1", 1),
      pod("web", "10.0.0.2", 3),
    ]);
    expect(duplicates.map(([a, b]) => [a.location.document, b.location.document])).toEqual([
      [1, 3],
    ]);
    expect(ips(defs)).toEqual(["web=10.0.0.2@a.yaml"]);
  });
});
