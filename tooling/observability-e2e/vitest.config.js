import { defineTestConfig } from "@destination/vitest-config";

// deploy/observability with the real promtool and Prometheus (Debian's `prometheus` package) and
// the built server. Files one at a time (2 cores; one file runs Prometheus and the server).
// Reports to .vitest-observability-report.json, which tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
// Replaced, not merged: the shared config's files and report are the unit tests'.
config.test.include = ["test/**/*.test.ts", "src/**/*.test.ts"];
config.test.reporters = ["default", ["json", { outputFile: ".vitest-observability-report.json" }]];
export default config;
