// Shared vitest settings. Plain JS so vitest can load it before any build.
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig, mergeConfig } from "vitest/config";

/** The export condition that maps a workspace package to its TypeScript sources. */
export const SOURCE_CONDITION = "@destination/source";

/**
 * The base configuration: workspace packages resolved to their sources, a JSON report per
 * package (read by tooling/scripts/test-summary.mjs), and no hidden retries.
 * @param {import("vitest/config").UserConfig} [overrides]
 */
export function defineTestConfig(overrides = {}) {
  return mergeConfig(
    defineConfig({
      resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
      ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
      test: {
        include: ["src/**/*.test.ts", "test/**/*.test.ts"],
        environment: "node",
        reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
        testTimeout: 20_000,
        hookTimeout: 60_000,
      },
    }),
    overrides,
  );
}
