// A project of a user's own, outside the workspace: an empty temp folder, the packages installed
// from the local registry with npm or pnpm, files written, the type checker and node run in it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GroupProcess, spawnInGroup } from "@destination/doc-commands/process-group";
import { type Completed, runOk } from "./processes.js";
import { rootPin } from "./workspace.js";

export type Client = "npm" | "pnpm";

export interface Project {
  readonly dir: string;
  readonly client: Client;
  /** The packages as installed: `node_modules/<name>/package.json`. */
  installedManifest(name: string): { version: string; dependencies?: Record<string, string> };
  write(file: string, text: string): void;
  /** The project's own `tsc` with these arguments; fails with its output unless it exits 0. */
  tsc(args: readonly string[]): Promise<Completed>;
  /** `node FILE ARGS…` in the project: the Node under test, with `extraEnv` added. */
  node(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): GroupProcess;
}

/**
 * Installs `packages` (ours, from the README's `npm i` line) and the type checker the workspace
 * pins (typescript, @types/node), the way a user would: `npm i …` or `pnpm add …` in an empty
 * folder, which each client turns into a package.json and a lockfile.
 */
export async function createProject(
  dir: string,
  client: Client,
  packages: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Project> {
  mkdirSync(dir, { recursive: true });
  const tools = [`typescript@${rootPin("typescript")}`, `@types/node@${rootPin("@types/node")}`];
  const argv =
    client === "npm"
      ? ["npm", "install", ...packages, ...tools]
      : ["pnpm", "add", ...packages, ...tools];
  await runOk(argv, { cwd: dir, env, timeoutMs: 300_000 });
  return {
    dir,
    client,
    installedManifest(name) {
      return JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8"));
    },
    write(file, text) {
      writeFileSync(join(dir, file), text);
    },
    tsc(args) {
      return runOk([join(dir, "node_modules", ".bin", "tsc"), ...args], {
        cwd: dir,
        env,
        timeoutMs: 120_000,
      });
    },
    node(args, extraEnv = {}) {
      return spawnInGroup([process.execPath, ...args], { cwd: dir, env: { ...env, ...extraEnv } });
    },
  };
}
