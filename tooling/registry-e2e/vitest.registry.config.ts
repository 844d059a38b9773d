import { defineTestConfig } from "@destination/vitest-config";

// The published packages from a local registry (src/global-setup.ts publishes them once), one
// file at a time: each installs into folders of its own and starts a server or an API server.
// Reports to .vitest-registry-report.json, which tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.registry.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
// Replaced, not merged: the shared config's report file is the unit tests'.
config.test.reporters = ["default", ["json", { outputFile: ".vitest-registry-report.json" }]];
export default config;
