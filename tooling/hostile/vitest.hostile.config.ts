import { defineTestConfig } from "@destination/vitest-config";

// Attacks on the built server, one file at a time (2 cores: the attacker, the canary and the
// server already share them). Reports to .vitest-hostile-report.json, which
// tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.hostile.test.ts"],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
// Replaced, not merged: the shared config's report file is the unit tests'.
config.test.reporters = ["default", ["json", { outputFile: ".vitest-hostile-report.json" }]];
export default config;
