#!/usr/bin/env node
// Sums every package's vitest JSON reports (unit, e2e, integration, deploy, observability, registry,
// hostile, proxy, mesh) into
// one closing line, so a run of the whole workspace ends with the count of tests that ran, per
// package and in total.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const rows = [];
for (const group of ["packages", "apps", "tooling"]) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir).sort()) {
    for (const [file, suffix] of [
      [".vitest-report.json", ""],
      [".vitest-e2e-report.json", " (e2e)"],
      [".vitest-proxy-report.json", " (proxy)"],
      [".vitest-mesh-report.json", " (mesh)"],
      [".vitest-hostile-report.json", " (hostile)"],
      [".vitest-registry-report.json", " (registry)"],
      [".vitest-deploy-report.json", " (deploy)"],
      [".vitest-observability-report.json", " (observability)"],
    ]) {
      const report = join(dir, name, file);
      if (!existsSync(report)) continue;
      const json = JSON.parse(readFileSync(report, "utf8"));
      rows.push({
        pkg: `${group}/${name}${suffix}`,
        passed: json.numPassedTests ?? 0,
        failed: json.numFailedTests ?? 0,
        skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0),
      });
    }
  }
}
const width = Math.max(7, ...rows.map((r) => r.pkg.length));
console.log(`\n${"package".padEnd(width)}  passed  failed  skipped`);
for (const r of rows) {
  console.log(
    `${r.pkg.padEnd(width)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.skipped).padStart(7)}`,
  );
}
const total = (k) => rows.reduce((n, r) => n + r[k], 0);
console.log(
  `\ntests: ${total("passed")} passed, ${total("failed")} failed, ${total("skipped")} skipped`,
);
process.exit(total("failed") > 0 || rows.length === 0 ? 1 : 0);
