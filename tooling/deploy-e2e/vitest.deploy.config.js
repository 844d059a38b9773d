import { defineTestConfig } from "@destination/vitest-config";

// deploy/linkerd against Linkerd's real chart (LINKERD_RELEASE_DIR), the pinned Helm 4 and
// kustomize, and a real kube-apiserver. Files one at a time (2 cores; one file runs an API
// server). Reports to .vitest-deploy-report.json, which tooling/scripts/test-summary.mjs counts.
const config = defineTestConfig({
  test: {
    include: ["test/**/*.deploy.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
// Replaced, not merged: the shared config's files and report are the unit tests'.
config.test.include = ["test/**/*.deploy.test.ts"];
config.test.reporters = ["default", ["json", { outputFile: ".vitest-deploy-report.json" }]];
export default config;
