// What `pnpm release` (build, then `changeset publish`) put on the local registry: every
// workspace package a user can install, at its workspace version, with real version ranges
// where the workspace says `workspace:*`, and only the entry points decision 0011 publishes.
import { describe, expect, inject, it } from "vitest";
import { publishablePackages } from "../src/workspace.js";

interface Packument {
  "dist-tags": Record<string, string>;
  versions: Record<string, PublishedManifest>;
}

interface PublishedManifest {
  version: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  engines?: Record<string, string>;
  license?: string;
  dist: { tarball: string };
}

const registry = inject("registry");
const packages = publishablePackages();

describe("pnpm release, pointed at the local registry", () => {
  it("publishes the twelve packages", () => {
    expect(packages.map((p) => p.name).sort()).toEqual([
      "@destination/cli",
      "@destination/core",
      "@destination/endpoints-watcher",
      "@destination/external-workload-controller",
      "@destination/go-compat",
      "@destination/k8s-discovery",
      "@destination/multicluster",
      "@destination/pod-watcher",
      "@destination/profile-watchers",
      "@destination/proto",
      "@destination/server",
      "@destination/translators",
    ]);
    // changeset publish lists what it published, one `name@version` a line.
    for (const pkg of packages) {
      expect(registry.releaseOutput).toContain(`${pkg.name}@${pkg.version}`);
    }
  });

  it.each(packages)("$name is there at $version, as a user's client reads it", async (pkg) => {
    const response = await fetch(new URL(pkg.name.replace("/", "%2f"), registry.url));
    expect(response.status).toBe(200);
    const packument = (await response.json()) as Packument;
    expect(packument["dist-tags"].latest).toBe(pkg.version);
    const manifest = packument.versions[pkg.version] as PublishedManifest;
    expect(manifest.license).toBe("Apache-2.0");
    expect(manifest.engines).toEqual({ node: ">=24" });
    expect(manifest.dist.tarball.startsWith(registry.url)).toBe(true);
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      // pnpm publish writes `^` and the workspace package's version for `workspace:^`, so a
      // user's install can share one copy of a sibling between packages.
      const sibling = packages.find((p) => p.name === name);
      expect(range, name).toBe(sibling === undefined ? range : `^${sibling.version}`);
      expect(range, name).not.toMatch(/^workspace:/);
    }
    const exported = JSON.stringify(manifest.exports);
    expect(exported).not.toContain("@destination/source");
    expect(exported).not.toContain("./src/");
  });
});
