// The other packages' README examples as a user runs them: every package README starts with its
// install line and an example, and the examples below (each a `ts title="<file>"` block, with a
// `text title="<file> prints"` block after it) are installed from the registry with npm in one
// project outside the workspace, type-checked with `tsc --strict` (no skipLibCheck) and run.
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { run } from "../src/processes.js";
import { createProject, type Project } from "../src/project.js";
import {
  publishablePackages,
  ROOT,
  readmeBlocks,
  readmeExample,
  readmeInstall,
  readmeOutput,
  workspacePackage,
} from "../src/workspace.js";

const registry = inject("registry");

interface Example {
  readonly pkg: string;
  readonly file: string;
  /** Arguments after the file; `dir` is the project's folder. */
  readonly args?: (dir: string) => string[];
  /** The output's order is not the example's to decide (a folder's listing). */
  readonly anyOrder?: boolean;
}

const EXAMPLES: readonly Example[] = [
  { pkg: "@destination/core", file: "core.mts" },
  { pkg: "@destination/go-compat", file: "go-compat.mts" },
  {
    pkg: "@destination/k8s-discovery",
    file: "pods.mts",
    args: (dir) => [join(dir, "examples")],
    anyOrder: true,
  },
  { pkg: "@destination/pod-watcher", file: "workload.mts" },
  { pkg: "@destination/profile-watchers", file: "profiles.mts" },
  { pkg: "@destination/multicluster", file: "multicluster.mts" },
  { pkg: "@destination/translators", file: "translate.mts" },
];

const readmeOf = (name: string) => join(ROOT, workspacePackage(name).dir, "README.md");

/** The type check each of these READMEs shows: `npx tsc --strict --module nodenext --noEmit FILE`. */
const TSC = ["--strict", "--module", "nodenext", "--noEmit"];

describe("every package README", () => {
  it.each(publishablePackages())("$name starts with its install line and an example", (pkg) => {
    const readme = join(ROOT, pkg.dir, "README.md");
    expect(readmeInstall(readme)[0]).toBe(pkg.name);
    // The README's first code block is that install line.
    const first = readmeBlocks(readme)[0];
    expect(first?.body).toMatch(new RegExp(`^npm i (-g )?${pkg.name}\\b`));
  });
});

describe("the README examples, installed with npm from the registry", () => {
  let project: Project;
  /** What one `tsc --strict` over every example printed (one program: a fraction of the time). */
  let typecheck: { code: number | null; output: string };

  beforeAll(async () => {
    const packages = [...new Set(EXAMPLES.flatMap((e) => readmeInstall(readmeOf(e.pkg))))];
    project = await createProject(
      join(registry.dir, "examples-npm"),
      "npm",
      packages,
      registry.env,
    );
    cpSync(join(ROOT, "examples"), join(project.dir, "examples"), { recursive: true });
    for (const example of EXAMPLES) {
      project.write(example.file, readmeExample(readmeOf(example.pkg), example.file));
    }
    const files = EXAMPLES.map((e) => e.file);
    typecheck = await run([join(project.dir, "node_modules", ".bin", "tsc"), ...TSC, ...files], {
      cwd: project.dir,
      env: registry.env,
      timeoutMs: 180_000,
    });
  });

  it.each(EXAMPLES)("$pkg: $file type-checks and prints what the README says", async (example) => {
    const readme = readmeOf(example.pkg);
    const prose = readFileSync(readme, "utf8").replace(/\s+/g, " ");
    expect(prose).toContain(`npx tsc ${TSC.join(" ")} ${example.file}`);
    // tsc names the file of each error first; declarations of the packages count for every file.
    const errors = typecheck.output
      .split("\n")
      .filter((line) => / error TS\d+:/.test(line))
      .filter((line) => line.startsWith(example.file) || line.startsWith("node_modules/"));
    expect(errors).toEqual([]);
    expect(typecheck.code, typecheck.output).toBe(0);
    const proc = project.node([example.file, ...(example.args?.(project.dir) ?? [])]);
    const exit = await proc.exited;
    expect(exit, proc.output()).toEqual({ code: 0, signal: null });
    const printed = proc.stdout().trimEnd().split("\n");
    const expected = readmeOutput(readme, `${example.file} prints`);
    if (example.anyOrder) expect(printed.sort()).toEqual([...expected].sort());
    else expect(printed).toEqual(expected);
  });
});
