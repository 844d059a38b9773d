#!/usr/bin/env node
// `pnpm exec node tooling/scripts/import-time.mjs [--runs=N] [--json] [package…]`: what importing
// each workspace package's main entry costs a user. Each package is imported by its name (its
// `exports`, so the built dist/index.js) in a fresh node process, `--runs` times (5 by default),
// and the median of the import alone is reported: the child reads performance.now() around one
// dynamic import, so node's own start is left out. Rounds go over all packages in turn, so that
// a burst of load elsewhere spreads over every package instead of one.
//
// One more child per package counts the modules that import loads (a `module.registerHooks`
// load hook, left out of the timed runs as it costs time itself), by npm package, and says how
// many files of `@kubernetes/client-node` were among them: a user of the manifests backend
// should load none. Build first (`pnpm build`); a package without its dist fails the run.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const USAGE = `usage: pnpm exec node tooling/scripts/import-time.mjs [--runs=N] [--json] [package…]

  --runs=N   timed imports per package, each in a fresh process (default 5)
  --json     print the results as JSON instead of a table
  package    only these packages (name, e.g. @destination/core, or folder, e.g. packages/core)
`;
const CLIENT_NODE = "@kubernetes/client-node";

/** The child that times one import: the import alone, not node's start. */
const TIMED_CHILD = `
const name = process.argv[1];
const start = performance.now();
await import(name);
const ms = performance.now() - start;
process.stdout.write(JSON.stringify({ ms }), () => process.exit(0));
`;

/** The child that lists what one import loads; untimed, as the hook costs time of its own. */
const COUNTING_CHILD = `
import { registerHooks } from "node:module";
const name = process.argv[1];
const urls = new Set();
registerHooks({
  load(url, context, next) {
    if (!url.startsWith("node:")) urls.add(url);
    return next(url, context);
  },
});
await import(name);
process.stdout.write(JSON.stringify({ urls: [...urls] }), () => process.exit(0));
`;

function parseArgs(argv) {
  const args = { runs: 5, json: false, only: [] };
  for (const raw of argv) {
    if (raw === "--") continue;
    if (raw === "--help" || raw === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (raw === "--json") args.json = true;
    else if (raw.startsWith("--runs=")) {
      const n = Number(raw.slice("--runs=".length));
      if (!Number.isInteger(n) || n < 1) fail(`bad argument: ${raw}`);
      args.runs = n;
    } else if (raw.startsWith("-")) fail(`bad argument: ${raw}`);
    else args.only.push(raw);
  }
  return args;
}

function fail(message) {
  process.stderr.write(`import-time: ${message}\n${USAGE}`);
  process.exit(2);
}

/** packages/* and apps/*: every package a user could install, with its main entry's file. */
function workspacePackages() {
  const found = [];
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      const dir = join(ROOT, group, entry.name);
      const manifestPath = join(dir, "package.json");
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      const main = manifest.exports?.["."];
      const file = typeof main === "string" ? main : (main?.import ?? main?.default);
      if (typeof file !== "string") continue;
      found.push({ name: manifest.name, dir, folder: `${group}/${entry.name}`, entry: file });
    }
  }
  return found;
}

/** The main entry's file from the repository root, as a person would type it. */
function entryPath(pkg) {
  return `${pkg.folder}/${pkg.entry.replace(/^\.\//, "")}`;
}

function runChild(source, pkg) {
  return new Promise((resolvePromise, reject) => {
    // Run from the package's folder: `import(name)` then resolves through its own `exports`
    // (a package may import itself by name), as a user's import of it would.
    const child = spawn(process.execPath, ["--input-type=module", "--eval", source, pkg.name], {
      cwd: pkg.dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`importing ${pkg.name} failed (exit ${code}): ${err}`));
      else resolvePromise(JSON.parse(out));
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The npm package (or workspace folder) a loaded file belongs to. */
function ownerOf(url, packages) {
  if (!url.startsWith("file:")) return url.split(":")[0];
  const path = fileURLToPath(url);
  const at = path.lastIndexOf("/node_modules/");
  if (at >= 0) {
    const parts = path.slice(at + "/node_modules/".length).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const own = packages.find((p) => path.startsWith(`${p.dir}/`));
  return own?.name ?? relative(ROOT, path);
}

function summarizeModules(urls, packages) {
  const byPackage = {};
  for (const url of urls) {
    const owner = ownerOf(url, packages);
    byPackage[owner] = (byPackage[owner] ?? 0) + 1;
  }
  const sorted = Object.fromEntries(Object.entries(byPackage).sort((a, b) => b[1] - a[1]));
  return { total: urls.length, clientNode: byPackage[CLIENT_NODE] ?? 0, byPackage: sorted };
}

function printTable(results) {
  const rows = [
    ["package", "median ms", "min–max ms", "modules", "client-node files", "largest"],
    ...results.map((r) => [
      r.name,
      r.medianMs.toFixed(1),
      `${Math.min(...r.runsMs).toFixed(0)}–${Math.max(...r.runsMs).toFixed(0)}`,
      String(r.modules.total),
      String(r.modules.clientNode),
      Object.entries(r.modules.byPackage)
        .slice(0, 3)
        .map(([name, n]) => `${name} ${n}`)
        .join(", "),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) {
    process.stdout.write(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
}

const args = parseArgs(process.argv.slice(2));
const allPackages = workspacePackages();
let packages = allPackages;
if (args.only.length > 0) {
  const unknown = args.only.filter((o) => !packages.some((p) => p.name === o || p.folder === o));
  if (unknown.length > 0) fail(`no such package: ${unknown.join(", ")}`);
  packages = packages.filter((p) => args.only.includes(p.name) || args.only.includes(p.folder));
}
const unbuilt = packages.filter((p) => !existsSync(join(p.dir, p.entry)));
if (unbuilt.length > 0) {
  fail(`not built (run pnpm build): ${unbuilt.map(entryPath).join(", ")}`);
}

const times = new Map(packages.map((p) => [p.name, []]));
for (let round = 0; round < args.runs; round++) {
  for (const pkg of packages) times.get(pkg.name).push((await runChild(TIMED_CHILD, pkg)).ms);
}
const results = [];
for (const pkg of packages) {
  const { urls } = await runChild(COUNTING_CHILD, pkg);
  const runsMs = times.get(pkg.name);
  results.push({
    name: pkg.name,
    entry: entryPath(pkg),
    medianMs: median(runsMs),
    runsMs,
    modules: summarizeModules(urls, allPackages),
  });
}

if (args.json) {
  const machine = { node: process.version, cpus: (await import("node:os")).availableParallelism() };
  process.stdout.write(`${JSON.stringify({ machine, runs: args.runs, results }, null, 2)}\n`);
} else {
  printTable(results);
  process.stdout.write(
    `\n${process.version}, ${args.runs} runs each, median of the import alone\n`,
  );
}
