#!/usr/bin/env node
// `pnpm bench [args]` at the repo root: build the bench and everything it runs (turbo, cached),
// then run it on the built packages with the arguments passed through.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const main = fileURLToPath(new URL("./dist/main.js", import.meta.url));
const args = process.argv.slice(2).filter((a) => a !== "--");

// pnpm puts the workspace's binaries on PATH for scripts; pnpm itself may not be there.
const build = spawnSync(
  "turbo",
  ["run", "build", "--filter=@destination/bench...", "--output-logs=errors-only"],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
if (build.status !== 0) {
  process.stderr.write("bench: the build failed\n");
  process.exit(build.status ?? 1);
}
const run = spawnSync(process.execPath, ["--expose-gc", main, ...args], {
  // Relative paths (--json FILE) are relative to where `pnpm bench` was typed.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  stdio: "inherit",
});
process.exit(run.status ?? 1);
