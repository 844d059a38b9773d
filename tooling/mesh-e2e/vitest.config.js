import { defineTestConfig } from "@destination/vitest-config";

// Linkerd's control plane as processes against a real kube-apiserver, with real proxies in
// network namespaces; each scenario once with our destination server and once with upstream's.
// Files one at a time (2 cores; each runs an API server, three controllers and several proxies).
// Reports to .vitest-mesh-report.json, which tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.mesh.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
// Replaced, not merged: the shared config's report file is the unit tests'.
config.test.reporters = ["default", ["json", { outputFile: ".vitest-mesh-report.json" }]];
export default config;
