import { defineTestConfig } from "@destination/vitest-config";

// Unit tests only (no binaries needed); the integration suite has its own config.
export default defineTestConfig({
  test: { exclude: ["**/node_modules/**", "**/dist/**", "test/**/*.int.test.ts"] },
});
