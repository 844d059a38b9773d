import { defineTestConfig } from "@destination/vitest-config";

// The frame and HPACK writers' own tests; the attacks are `test:hostile` (vitest.hostile.config.ts).
export default defineTestConfig({
  test: { exclude: ["**/node_modules/**", "**/*.hostile.test.ts"] },
});
