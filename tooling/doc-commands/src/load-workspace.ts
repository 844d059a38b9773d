/** Reads the real repository into a Workspace. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Workspace, WorkspacePackage } from "./workspace.js";

interface PackageJson {
  name?: string;
  scripts?: Record<string, string>;
  packageManager?: string;
}

export function loadWorkspace(rootDir: string): Workspace {
  const root = readPackage(rootDir, "");
  const packages: WorkspacePackage[] = [];
  for (const pattern of workspacePatterns(rootDir)) {
    for (const dir of expandPattern(rootDir, pattern)) packages.push(readPackage(rootDir, dir));
  }
  const manifest = JSON.parse(readFileSync(join(rootDir, "package.json"), "utf8")) as PackageJson;
  const pnpmVersion = /^pnpm@([^+\s]+)/.exec(manifest.packageManager ?? "")?.[1];
  return {
    root,
    packages,
    pnpmVersion,
    exists: (path) => existsSync(join(rootDir, path)),
  };
}

function readPackage(rootDir: string, dir: string): WorkspacePackage {
  const manifest = JSON.parse(
    readFileSync(join(rootDir, dir, "package.json"), "utf8"),
  ) as PackageJson;
  const binDir = join(rootDir, dir, "node_modules/.bin");
  const bins = new Set(existsSync(binDir) ? readdirSync(binDir) : []);
  return { name: manifest.name ?? dir, dir, scripts: manifest.scripts ?? {}, bins };
}

/** The `packages:` globs of pnpm-workspace.yaml; only the `dir/*` and `dir` forms are used here. */
function workspacePatterns(rootDir: string): string[] {
  const text = readFileSync(join(rootDir, "pnpm-workspace.yaml"), "utf8");
  const patterns: string[] = [];
  let inPackages = false;
  for (const line of text.split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
      continue;
    }
    if (inPackages) {
      const item = /^\s+-\s+["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line);
      if (item) patterns.push(item[1] as string);
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  return patterns;
}

function expandPattern(rootDir: string, pattern: string): string[] {
  if (!pattern.endsWith("/*")) {
    return existsSync(join(rootDir, pattern, "package.json")) ? [pattern] : [];
  }
  const parent = pattern.slice(0, -2);
  if (!existsSync(join(rootDir, parent))) return [];
  return readdirSync(join(rootDir, parent), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(rootDir, parent, e.name, "package.json")))
    .map((e) => `${parent}/${e.name}`)
    .sort();
}
