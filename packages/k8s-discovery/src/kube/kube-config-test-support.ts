// Shared by the kubeconfig tests (unit and e2e): temporary folders removed after each test, and
// the HTTPS options a loaded kubeconfig produces.
import { mkdtempSync, rmSync } from "node:fs";
import type { RequestOptions } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { loadKubeConfig } from "./kube-config.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Runs `step` after the current test, after the steps registered later. */
export function afterThisTest(step: () => unknown): void {
  cleanup.push(step);
}

/** A new temporary folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-config-test-"));
  afterThisTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The HTTPS request options the kubeconfig's credentials and CA produce. */
export async function applied(config: ReturnType<typeof loadKubeConfig>): Promise<RequestOptions> {
  const options: RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  return options;
}
