#!/usr/bin/env node
// `pnpm fuzz [runs] [seed]` at the repo root: the server's bad-input property tests with many
// more runs (100,000 by default) and a fresh seed. Random authorities and context tokens go to a
// server over gRPC on loopback, random manifest files to the folder it serves; any undocumented
// status code, logged error or difference in the known Service's answer fails the run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const args = process.argv.slice(2).filter((a) => a !== "--");
const runs = Number(args[0] ?? 100_000);
const seed = Number(args[1] ?? Math.floor(Math.random() * 2 ** 31));
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  process.stderr.write("usage: pnpm fuzz [runs] [seed]\n");
  process.exit(2);
}

// pnpm puts the workspace's binaries on PATH for scripts, but pnpm itself may not be there
// (run as `npx pnpm`), so the script calls turbo and vitest directly.
const build = spawnSync(
  "turbo",
  ["run", "build", "--filter=@destination/server^...", "--output-logs=errors-only"],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
if (build.status !== 0) {
  process.stderr.write("fuzz: the build failed\n");
  process.exit(build.status ?? 1);
}

const dir = mkdtempSync(join(tmpdir(), "destination-fuzz-"));
const summaryFile = join(dir, "summary.json");
process.stdout.write(`fuzz: ${runs} runs, seed ${seed}\n`);
const started = performance.now();
const server = join(root, "apps/destination-server");
const run = spawnSync(
  join(server, "node_modules/.bin/vitest"),
  // The e2e config: the unit config leaves out `*.e2e.test.ts`.
  ["run", "--config", "vitest.e2e.config.js", "test/bad-input.e2e.test.ts"],
  {
    cwd: server,
    stdio: "inherit",
    env: {
      ...process.env,
      FUZZ_RUNS: String(runs),
      FUZZ_SEED: String(seed),
      FUZZ_SUMMARY: summaryFile,
    },
  },
);
const seconds = Math.round((performance.now() - started) / 1000);

let summary;
try {
  summary = JSON.parse(readFileSync(summaryFile, "utf8"));
} catch {
  summary = undefined;
}
rmSync(dir, { recursive: true, force: true });
if (summary === undefined) {
  process.stdout.write(`fuzz: no summary; the run failed after ${seconds} s\n`);
  process.exit(run.status || 1);
}
const codes = Object.entries(summary.codes)
  .map(([code, count]) => `${code} ${count}`)
  .join(", ");
process.stdout.write(
  `fuzz: ${summary.requests} requests (Get and GetProfile; ${codes}), ` +
    `${summary.manifestDocuments} manifest documents in ${summary.manifestFiles} files, ` +
    `${summary.reconnects ?? 0} lookups asked again on a new connection, seed ${seed}, ${seconds} s\n`,
);
const crashes = summary.crashes.length;
if (run.status !== 0 || crashes > 0) {
  process.stdout.write(
    `fuzz: FAILED: ${crashes} crashes${run.status !== 0 ? ", and a property failed (see above)" : ""}\n`,
  );
  process.exit(1);
}
process.stdout.write("fuzz: 0 crashes\n");
