import { defineTestConfig } from "@destination/vitest-config";

// Integration tests against a real kube-apiserver and etcd (tooling/k8s-env). One environment per
// test file, files one at a time (2 cores; each file restarts or compacts its own API server).
// The global setup provisions the binaries first (a build of minutes on a fresh machine) and
// prints the API server's version before any test runs. Reports to .vitest-report.json, which
// tooling/scripts/test-summary.mjs counts.
export default defineTestConfig({
  test: {
    include: ["test/**/*.int.test.ts"],
    globalSetup: ["./src/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
