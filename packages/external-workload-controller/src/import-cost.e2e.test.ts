import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// The server imports this package on every start, a manifests folder's included: a fresh node
// imports it by name (its `exports`, so dist/, which `test:e2e` builds first) and a module hook
// lists every file loaded. client-node (half a second) may load only once a cluster backend is
// created, never with this import.

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** npm packages by name, workspace packages (linked, so loaded from their own folder) by folder. */
async function packagesLoadedByImport(): Promise<Set<string>> {
  const source = `
    import { registerHooks } from "node:module";
    const urls = [];
    registerHooks({
      load(url, context, next) {
        urls.push(url);
        return next(url, context);
      },
    });
    const ewc = await import("@destination/external-workload-controller");
    if (typeof ewc.ExternalWorkloadController !== "function") throw new Error("no controller");
    process.stdout.write(JSON.stringify(urls));
  `;
  const { stdout } = await run(process.execPath, ["--input-type=module", "--eval", source], {
    cwd: PACKAGE_DIR,
  });
  const packages = new Set<string>();
  for (const url of JSON.parse(stdout) as string[]) {
    const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    const workspace = /\/(packages\/[^/]+)\/dist\//.exec(url);
    if (match?.[1] !== undefined) packages.add(match[1]);
    else if (workspace?.[1] !== undefined) packages.add(workspace[1]);
  }
  return packages;
}

describe("what importing the package loads", () => {
  it("loads the controller without @kubernetes/client-node", async () => {
    const loaded = await packagesLoadedByImport();
    expect(loaded).toContain("packages/k8s-discovery");
    expect(loaded).not.toContain("@kubernetes/client-node");
  });
});
