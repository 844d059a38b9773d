import { defineTestConfig } from "@destination/vitest-config";

// The unit tests (`test`): no tools, no cluster. The deploy suite is vitest.deploy.config.js.
export default defineTestConfig({ test: { include: ["src/**/*.test.ts"] } });
