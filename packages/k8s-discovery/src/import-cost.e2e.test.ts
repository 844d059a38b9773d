import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// What a user of the built package loads (README, "Import cost"): each case imports
// `@destination/k8s-discovery` by name (its `exports`, so dist/, which `test:e2e` builds first)
// in a fresh node, and a module hook lists every file loaded. In-process, vitest and the
// sources would be measured instead.

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** The packages a fresh node loaded while running `body` after `import * as k8s from ...`. */
async function packagesLoadedBy(body: string): Promise<Set<string>> {
  const source = `
    import { registerHooks } from "node:module";
    const urls = [];
    registerHooks({
      load(url, context, next) {
        urls.push(url);
        return next(url, context);
      },
    });
    const k8s = await import("@destination/k8s-discovery");
    ${body}
    process.stdout.write(JSON.stringify(urls));
  `;
  const { stdout } = await run(process.execPath, ["--input-type=module", "--eval", source], {
    cwd: PACKAGE_DIR,
  });
  const packages = new Set<string>();
  for (const url of JSON.parse(stdout) as string[]) {
    // The package is the one after the last node_modules (pnpm nests them under .pnpm).
    const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match?.[1] !== undefined) packages.add(match[1]);
  }
  return packages;
}

const dir = mkdtempSync(join(tmpdir(), "k8s-discovery-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("what importing the package loads", () => {
  it("loads neither client-node nor the manifests or protobuf libraries on a bare import", async () => {
    const loaded = await packagesLoadedBy("");
    for (const heavy of ["@kubernetes/client-node", "yaml", "chokidar", "@bufbuild/protobuf"]) {
      expect(loaded, heavy).not.toContain(heavy);
    }
  });

  it("serves a folder of manifests without loading client-node", async () => {
    writeFileSync(
      join(dir, "web.yaml"),
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n",
    );
    const loaded = await packagesLoadedBy(`
      const cluster = k8s.createManifestsCluster({ dir: ${JSON.stringify(dir)} });
      await cluster.start();
      await cluster.whenSynced();
      if (cluster.services.list().length !== 1) throw new Error("the Service was not read");
      await cluster.stop();
    `);
    expect(loaded).toContain("yaml");
    expect(loaded).toContain("chokidar");
    expect(loaded).not.toContain("@kubernetes/client-node");
  });

  it("loads client-node once the cluster backend is created", async () => {
    const kubeconfig = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]",
      "users: [{name: u, user: {token: t}}]",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
    ].join("\n");
    const loaded = await packagesLoadedBy(`
      await k8s.createKubeCluster({
        kubeconfigYaml: ${JSON.stringify(kubeconfig)},
        enableEndpointSlices: true,
      });
    `);
    expect(loaded).toContain("@kubernetes/client-node");
    expect(loaded).toContain("@bufbuild/protobuf");
  });
});
