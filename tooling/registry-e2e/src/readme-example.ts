// A package's README example as a user tries it: the package installed alone in a project of its
// own, the example written there and type-checked the way the README says, run, and, for an
// example that runs until stopped, ended with Ctrl-C.
import { join } from "node:path";
import type { GroupProcess } from "@destination/doc-commands/process-group";
import { expect } from "vitest";
import { type Client, createProject, type Project } from "./project.js";
import {
  ROOT,
  readmeExample,
  readmeInstall,
  readmeTypecheck,
  workspacePackage,
} from "./workspace.js";

export interface ReadmeExample {
  readonly project: Project;
  /** The package's README: what the example prints is read from it. */
  readonly readme: string;
}

/**
 * Installs `packageName` as its README's `npm i` line does, which must name it alone, with `client`
 * into `dir`; writes the README's example `file` there and type-checks it with the README's
 * `npx tsc` arguments.
 */
export async function installReadmeExample(
  packageName: string,
  file: string,
  where: { readonly dir: string; readonly client: Client; readonly env: NodeJS.ProcessEnv },
): Promise<ReadmeExample> {
  const pkg = workspacePackage(packageName);
  const readme = join(ROOT, pkg.dir, "README.md");
  const install = readmeInstall(readme);
  expect(install).toEqual([pkg.name]);
  const project = await createProject(where.dir, where.client, install, where.env);
  expect(project.installedManifest(pkg.name).version).toBe(pkg.version);
  project.write(file, readmeExample(readme, file));
  await project.tsc(readmeTypecheck(readme));
  return { project, readme };
}

/** Ctrl-C, as the README ends the example: it must exit 0 within 15 s. */
export async function interruptExample(example: GroupProcess): Promise<void> {
  example.child.kill("SIGINT");
  const exit = await Promise.race([
    example.exited,
    new Promise((resolve) => setTimeout(() => resolve("still running"), 15_000).unref()),
  ]);
  expect(exit, `after Ctrl-C:\n${example.output()}`).toEqual({ code: 0, signal: null });
}
