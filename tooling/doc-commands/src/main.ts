/**
 * `pnpm check:doc-commands [--static]`: every command in a shell code block of the repository's
 * Markdown files is checked statically, then the ones CI can afford (CI_RUNS) are run for real.
 * One line per command; exits 1 when any failed.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type CommandCheck, checkDocumentedCommands } from "./check-commands.js";
import { CI_RUNS, undocumentedRuns } from "./ci-runs.js";
import { FLAG_CHECKED_PROGRAMS, listedSubcommands } from "./documented-programs.js";
import { loadWorkspace } from "./load-workspace.js";
import { extractDocumentedCommands } from "./markdown-commands.js";
import { type FlagSpec, gnuSpec, parseGoUsage } from "./program-flags.js";

const USAGE = `usage: pnpm check:doc-commands [--static | --run=TEXT]

  --static     check every documented command statically, run none of them
  --run=TEXT   run only the commands whose name contains TEXT (e.g. --run=start)
`;

/** Folders whose Markdown is not documentation of this repository. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", ".git", ".turbo", ".changeset", "coverage"]);

const root = fileURLToPath(new URL("../../../", import.meta.url));
const argv = process.argv.slice(2).filter((a) => a !== "--");
if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = argv.filter((a) => a !== "--static" && !a.startsWith("--run="));
if (unknown.length > 0) {
  process.stderr.write(`check-doc-commands: unknown argument ${unknown[0]}\n${USAGE}`);
  process.exit(2);
}
const staticOnly = argv.includes("--static");
const runFilter = argv.find((a) => a.startsWith("--run="))?.slice("--run=".length);

const started = performance.now();
let workspace: ReturnType<typeof loadWorkspace>;
try {
  workspace = loadWorkspace(root);
} catch (err) {
  process.stderr.write(`check-doc-commands: cannot read the workspace at ${root}: ${err}\n`);
  process.exit(1);
}
const commands = markdownFiles(root).flatMap((file) =>
  extractDocumentedCommands(readFileSync(join(root, file), "utf8"), file),
);
const checks = checkDocumentedCommands(commands, { workspace, flags: readFlags() });
let failed = 0;
for (const check of checks) {
  if (check.problems.length > 0) failed++;
  printStatic(check);
}
for (const { run, missing } of undocumentedRuns(CI_RUNS, commands)) {
  failed++;
  print("FAILED", "run list", "", run.name, `no longer documented: ${missing.join("; ")}`);
}
const staticSeconds = (performance.now() - started) / 1000;

let ran = 0;
if (!staticOnly) {
  const pnpm = pnpmArgv();
  for (const run of CI_RUNS) {
    if (runFilter !== undefined && !run.name.includes(runFilter)) continue;
    const runStarted = performance.now();
    const outcome = await run.run({ root, pnpm, timeoutMs: run.timeoutMs });
    const seconds = ((performance.now() - runStarted) / 1000).toFixed(1);
    ran++;
    if (outcome.ok) {
      print("ok", `ran ${seconds}s`, "", run.name, outcome.detail);
    } else {
      failed++;
      print("FAILED", `ran ${seconds}s`, "", run.name, outcome.detail);
      const tail = (outcome.output ?? "").trimEnd().split("\n").slice(-60);
      process.stdout.write(`${tail.map((l) => `    | ${l}`).join("\n")}\n`);
    }
  }
}

const total = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `documented commands: ${checks.length} checked statically (${staticSeconds.toFixed(1)} s), ` +
    `${ran} run for real, ${failed} failed, ${total} s in all\n`,
);
process.exit(failed > 0 ? 1 : 0);

function printStatic(check: CommandCheck): void {
  const { command, problems, notes } = check;
  const where = `${command.file}:${command.line}`;
  if (problems.length > 0) print("FAILED", "static", where, command.text, problems.join("; "));
  else print("ok", "static", where, command.text, notes.join("; "));
}

function print(status: string, mode: string, where: string, text: string, why: string): void {
  const shown = text.length > 90 ? `${text.slice(0, 87)}...` : text;
  const columns = `${status.padEnd(6)} ${mode.padEnd(11)} ${where === "" ? "" : `${where.padEnd(36)} `}`;
  process.stdout.write(`${columns}${shown}${why === "" ? "" : `  (${why})`}\n`);
}

/** Every Markdown file of the repository, sorted, relative to the root. */
function markdownFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...markdownFiles(join(dir, entry.name)));
    } else if (entry.name.endsWith(".md")) {
      files.push(relative(root, join(dir, entry.name)));
    }
  }
  return files.sort();
}

/** Each program's flags from its own help output, on the built packages. */
function readFlags(): Map<string, FlagSpec | Error> {
  const flags = new Map<string, FlagSpec | Error>();
  const help = (args: readonly string[]): string => {
    const out = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", timeout: 30_000 });
    if (out.status !== 0) {
      const why = (out.stderr || out.error?.message || "").trim().split("\n")[0];
      throw new Error(`node ${args.join(" ")} exited ${out.status}: ${why} (run pnpm build first)`);
    }
    return out.stdout;
  };
  for (const program of FLAG_CHECKED_PROGRAMS) {
    try {
      const text = help(program.helpArgv);
      if (program.style === "go") {
        flags.set(program.name, parseGoUsage(text));
      } else {
        const { subcommandHelpArgv } = program;
        const subs =
          subcommandHelpArgv === undefined
            ? undefined
            : new Map(
                listedSubcommands(program.name, text).map((s) => [s, help(subcommandHelpArgv(s))]),
              );
        flags.set(program.name, gnuSpec(text, subs));
      }
    } catch (err) {
      flags.set(program.name, err instanceof Error ? err : new Error(String(err)));
    }
  }
  return flags;
}

/** The pnpm that runs this check (pnpm sets npm_execpath for scripts), else pnpm from PATH. */
function pnpmArgv(): string[] {
  const execPath = process.env.npm_execpath;
  if (execPath === undefined || !/pnpm/.test(execPath)) return ["pnpm"];
  return /\.[cm]?js$/.test(execPath) ? [process.execPath, execPath] : [execPath];
}
