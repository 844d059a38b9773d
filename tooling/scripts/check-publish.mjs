#!/usr/bin/env node
// The publisher lints of every package a user installs from a registry (`pnpm check:publish`,
// after a build). Each workspace package that is not private is packed the way `pnpm publish`
// packs it (`publishConfig` applied, `workspace:` ranges replaced by versions), and the tarball,
// not the folder, must pass:
//
// - publint --strict (warnings are errors);
// - attw with the ESM-only profile: the packages ship ES modules only and say so
//   (docs/decisions/0010-esm-only-packages.md), so the CommonJS resolution modes are not graded;
// - the manifest checks below: no `workspace:` range left, the license, repository folder and
//   engines every package carries, and `publishConfig.exports` equal to the workspace's `exports`
//   without the `@destination/source` condition
//   (docs/decisions/0011-published-package-contents.md), so the two maps cannot drift apart.
//
// Prints one line per package and exits 1 when any fails.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = new URL("../..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules", ".bin", name);

const SOURCE_CONDITION = "@destination/source";
const REPOSITORY_URL = "git+https://github.com/linkerd-destination/destination.git";
const NODE_ENGINES = ">=24";

/** Workspace packages a user can install: every package.json under packages/, apps/ and tooling/ without `private`. */
function publishablePackages() {
  const found = [];
  for (const group of ["packages", "apps", "tooling"]) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir).sort()) {
      const file = join(groupDir, name, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      if (manifest.private !== true) found.push({ dir: `${group}/${name}`, manifest });
    }
  }
  return found;
}

/** What a user is given: the workspace map without the source condition. */
function publishedExports(exports) {
  const out = {};
  for (const [subpath, target] of Object.entries(exports ?? {})) {
    if (typeof target !== "object" || target === null) {
      out[subpath] = target;
      continue;
    }
    out[subpath] = Object.fromEntries(
      Object.entries(target).filter(([condition]) => condition !== SOURCE_CONDITION),
    );
  }
  return out;
}

/** Problems of the workspace manifest itself. */
function manifestProblems({ dir, manifest }) {
  const problems = [];
  if (manifest.license !== "Apache-2.0") problems.push('license is not "Apache-2.0"');
  const repo = manifest.repository ?? {};
  if (repo.type !== "git" || repo.url !== REPOSITORY_URL || repo.directory !== dir) {
    problems.push(
      `repository is not { type: "git", url: "${REPOSITORY_URL}", directory: "${dir}" }`,
    );
  }
  if (manifest.engines?.node !== NODE_ENGINES)
    problems.push(`engines.node is not "${NODE_ENGINES}"`);
  if (manifest.publishConfig?.access !== "public")
    problems.push('publishConfig.access is not "public"');
  const expected = publishedExports(manifest.exports);
  if (JSON.stringify(manifest.publishConfig?.exports) !== JSON.stringify(expected)) {
    problems.push(
      `publishConfig.exports is not the exports map without "${SOURCE_CONDITION}":\n` +
        `  expected ${JSON.stringify(expected)}`,
    );
  }
  return problems;
}

/** Problems of the manifest in the tarball, as a registry would store it. */
function packedProblems(packed) {
  const problems = [];
  if (packed.private) problems.push("the packed manifest is private");
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (String(range).startsWith("workspace:")) {
        problems.push(`${field}.${name} is still "${range}" in the tarball`);
      }
    }
  }
  const exported = JSON.stringify(packed.exports ?? {});
  if (exported.includes(SOURCE_CONDITION) || exported.includes("./src/")) {
    problems.push(`the packed exports still name ${SOURCE_CONDITION} or ./src/`);
  }
  return problems;
}

async function check(pkg, packDir) {
  const problems = manifestProblems(pkg);
  const cwd = join(root, pkg.dir);
  const { stdout } = await run("pnpm", ["pack", "--json", "--pack-destination", packDir], { cwd });
  const tarball = JSON.parse(stdout).filename;
  const { stdout: packedJson } = await run("tar", ["-xOzf", tarball, "package/package.json"]);
  problems.push(...packedProblems(JSON.parse(packedJson)));
  const { stdout: listing } = await run("tar", ["-tzf", tarball]);
  for (const legal of ["package/LICENSE", "package/NOTICE"]) {
    if (!listing.split("\n").includes(legal)) problems.push(`the tarball has no ${legal.slice(8)}`);
  }
  const tools = [
    [bin("publint"), ["run", tarball, "--strict"]],
    [bin("attw"), [tarball, "--profile", "esm-only", "--format", "ascii", "--no-color"]],
  ];
  for (const [file, args] of tools) {
    try {
      await run(file, args, { cwd: packDir, maxBuffer: 16 << 20 });
    } catch (err) {
      const output = `${err.stdout ?? ""}${err.stderr ?? ""}`.trim();
      problems.push(`${file.split("/").pop()} failed:\n${output.replace(/^/gm, "    ")}`);
    }
  }
  return problems;
}

async function main() {
  const packages = publishablePackages();
  if (packages.length === 0) {
    console.error("check:publish: no publishable package found");
    process.exit(1);
  }
  const packDir = mkdtempSync(join(tmpdir(), "check-publish-"));
  let failed = 0;
  try {
    // Two at a time: attw loads TypeScript per tarball, and CI has two cores.
    const queue = [...packages];
    const results = new Map();
    await Promise.all(
      [0, 1].map(async () => {
        for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
          results.set(pkg.dir, await check(pkg, packDir));
        }
      }),
    );
    const width = Math.max(...packages.map((p) => p.manifest.name.length));
    for (const pkg of packages) {
      const problems = results.get(pkg.dir) ?? [];
      if (problems.length > 0) failed++;
      const status = problems.length === 0 ? "ok    " : "FAILED";
      console.log(`${status} ${pkg.manifest.name.padEnd(width)}  ${pkg.manifest.version}`);
      for (const problem of problems) console.log(`  ${problem}`);
    }
  } finally {
    rmSync(packDir, { recursive: true, force: true });
  }
  console.log(
    `\ncheck:publish: ${packages.length - failed} of ${packages.length} packages pass publint --strict, attw --profile esm-only and the manifest checks`,
  );
  process.exit(failed > 0 ? 1 : 0);
}

await main();
