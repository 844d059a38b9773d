// Vitest global setup: a Verdaccio on loopback, then the project's release command pointed at it,
// once for every test file. Each file then installs what it needs from that registry into
// folders of its own. Everything lives in one temp folder, removed at the end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { runOk } from "./processes.js";
import { clientEnv, type LocalRegistry, startRegistry } from "./registry.js";
import { ROOT } from "./workspace.js";

export interface ProvidedRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** The suite's temp folder. */
  readonly dir: string;
  /** The environment of npm, npx and pnpm commands (see `clientEnv`). */
  readonly env: Record<string, string>;
  /** What `pnpm release` printed. */
  readonly releaseOutput: string;
  readonly releaseMs: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    registry: ProvidedRegistry;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), "registry-e2e-"));
  let registry: LocalRegistry | undefined;
  const teardown = async () => {
    await registry?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const began = performance.now();
    registry = await startRegistry(join(dir, "verdaccio"), process.env.REGISTRY_E2E_UPLINK);
    const env = clientEnv(registry, join(dir, "home"));
    const started = ((performance.now() - began) / 1000).toFixed(1);
    // Never a real registry: the release command publishes wherever these point.
    for (const key of ["npm_config_registry", "PNPM_CONFIG_REGISTRY"]) {
      if (!env[key]?.startsWith("http://127.0.0.1:")) {
        throw new Error(`registry-e2e: ${key} is ${env[key]}, not the local registry`);
      }
    }
    // The project's release command as a maintainer runs it (build, then `changeset publish`),
    // without the git tags it would add to this checkout.
    const release = await runOk(["pnpm", "release", "--no-git-tag"], {
      cwd: ROOT,
      env,
      timeoutMs: 600_000,
    });
    process.stdout.write(
      `[registry-e2e] Verdaccio at ${registry.url} (uplink ${process.env.REGISTRY_E2E_UPLINK ?? "https://registry.npmjs.org/"}, up in ${started} s); ` +
        `pnpm release published in ${(release.ms / 1000).toFixed(1)} s\n`,
    );
    project.provide("registry", {
      url: registry.url,
      dir,
      env: env as Record<string, string>,
      releaseOutput: release.output,
      releaseMs: release.ms,
    });
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
