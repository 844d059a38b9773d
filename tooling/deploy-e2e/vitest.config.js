import { defineTestConfig } from "@destination/vitest-config";

// The unit tests (`test`): no tools, no cluster. The deploy suite (test/*.deploy.test.ts, which
// needs helm, kustomize and kube-apiserver) runs only through vitest.deploy.config.js.
const config = defineTestConfig();
// Replaced, not merged: the shared include would take test/*.deploy.test.ts in too.
config.test.include = ["src/**/*.test.ts"];
export default config;
