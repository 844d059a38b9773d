#!/usr/bin/env node
// Fails when a package's src/gen is not what `buf generate` produces from its proto/ today, so
// a schema edit can't land without its regenerated code (or vice versa). Run from the package's
// folder (its `check:generated` script), which holds buf.gen.yaml.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const pkgDir = process.cwd();
const pkgName = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).name;
const binDir = join(pkgDir, "node_modules", ".bin");
const committed = join(pkgDir, "src", "gen");
const outBase = mkdtempSync(join(tmpdir(), "check-generated-"));

/** Relative paths of every file under `dir` (empty if it does not exist). */
function listFiles(dir) {
  try {
    statSync(dir);
  } catch {
    return [];
  }
  return readdirSync(dir, { recursive: true })
    .map((p) => join(dir, String(p)))
    .filter((p) => statSync(p).isFile())
    .map((p) => relative(dir, p))
    .sort();
}

try {
  // `--output` relocates the template's `out: src/gen` under the temp dir.
  execFileSync(join(binDir, "buf"), ["generate", "--output", outBase], {
    cwd: pkgDir,
    stdio: ["ignore", "inherit", "inherit"],
    // buf looks up the `protoc-gen-es` plugin on PATH.
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ""}` },
  });
  const fresh = join(outBase, "src", "gen");
  const want = listFiles(fresh);
  const have = listFiles(committed);
  const problems = [];
  for (const f of want) {
    if (!have.includes(f)) problems.push(`missing:  src/gen/${f}`);
    else if (!readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f)))) {
      problems.push(`stale:    src/gen/${f}`);
    }
  }
  for (const f of have) if (!want.includes(f)) problems.push(`extra:    src/gen/${f}`);

  if (problems.length > 0) {
    console.error("check:generated FAILED: src/gen does not match the .proto files.");
    for (const p of problems) console.error(`  ${p}`);
    console.error(`Run \`pnpm -F ${pkgName} generate\` and commit the result.`);
    process.exitCode = 1;
  } else {
    console.log(`check:generated OK: ${want.length} generated files match proto/.`);
  }
} finally {
  rmSync(outBase, { recursive: true, force: true });
}
