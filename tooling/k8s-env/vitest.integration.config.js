import { defineTestConfig } from "@destination/vitest-config";

// Integration tests: real kube-apiserver + etcd processes. The first run builds the binaries
// (minutes); provision them beforehand with `pnpm -F @destination/k8s-env provision`.
const config = defineTestConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 1_800_000,
    fileParallelism: false,
  },
});
// mergeConfig concatenates arrays, so these replace the shared ones rather than extend them.
config.test.include = ["test/**/*.int.test.ts"];
config.test.reporters = ["default", ["json", { outputFile: ".vitest-integration-report.json" }]];
export default config;
