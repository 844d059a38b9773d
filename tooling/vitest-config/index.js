// Shared vitest settings. Plain JS so vitest can load it before any build.
import { defaultClientConditions, defaultServerConditions } from "vite";
import { configDefaults, defineConfig, mergeConfig } from "vitest/config";

/** The export condition that maps a workspace package to its TypeScript sources. */
export const SOURCE_CONDITION = "@destination/source";

/**
 * Test files that spawn binaries or open real sockets. `test` (the unit tests) leaves them out;
 * `test:e2e` runs only them.
 */
export const E2E_TEST_FILES = "**/*.e2e.test.ts";

/**
 * The settings both kinds of run share: workspace packages resolved to their sources, a JSON
 * report (read by tooling/scripts/test-summary.mjs), and no hidden retries.
 * @param {{ include: string[], exclude: string[], report: string }} files
 */
function sharedConfig({ include, exclude, report }) {
  return defineConfig({
    resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
    ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
    test: {
      include,
      exclude,
      environment: "node",
      reporters: ["default", ["json", { outputFile: report }]],
      // A bound for a test that hangs, not a measure: on a loaded two-core machine a test that
      // waits on several conditions in turn, or checks thousands of random inputs, takes many
      // times its quiet-machine time. Each condition has its own deadline (`eventually`).
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  });
}

/**
 * The base configuration of a package's unit tests (its `test` script): every test file but the
 * `*.e2e.test.ts` ones, reported to `.vitest-report.json`.
 * @param {import("vitest/config").UserConfig} [overrides]
 */
export function defineTestConfig(overrides = {}) {
  return mergeConfig(
    sharedConfig({
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, E2E_TEST_FILES],
      report: ".vitest-report.json",
    }),
    overrides,
  );
}

/**
 * The configuration of a package's end-to-end tests (its `test:e2e` script, with
 * `--config vitest.e2e.config.js`): only the `*.e2e.test.ts` files, reported to
 * `.vitest-e2e-report.json`.
 * @param {import("vitest/config").UserConfig} [overrides]
 */
export function defineE2eTestConfig(overrides = {}) {
  return mergeConfig(
    sharedConfig({
      include: ["src/**/*.e2e.test.ts", "test/**/*.e2e.test.ts"],
      exclude: [...configDefaults.exclude],
      report: ".vitest-e2e-report.json",
    }),
    overrides,
  );
}
