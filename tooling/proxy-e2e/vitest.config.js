import { defineTestConfig } from "@destination/vitest-config";

// The real linkerd2-proxy against our server, each test in a network namespace of its own.
// Files one at a time (2 cores; each test runs several proxies and a server). Reports to
// .vitest-proxy-report.json, which tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.proxy.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 180_000,
  },
});
// Replaced, not merged: the shared config's report file is the unit tests'.
config.test.reporters = ["default", ["json", { outputFile: ".vitest-proxy-report.json" }]];
export default config;
