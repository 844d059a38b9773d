/**
 * The static check of documented commands: every pnpm script, workspace package, binary, file and
 * flag a command names must exist. Nothing is run here.
 */
import { posix } from "node:path";
import { FLAG_CHECKED_PROGRAMS, type FlagCheckedProgram } from "./documented-programs.js";
import type { DocumentedCommand } from "./markdown-commands.js";
import { filterPackageName, type PnpmCommand, parsePnpmCommand } from "./pnpm-command.js";
import { checkFlags, type FlagSpec } from "./program-flags.js";
import { parseCommandLine, ShellSyntaxError, type ShellWord } from "./shell-words.js";
import { findPackage, type Workspace, type WorkspacePackage } from "./workspace.js";

export interface CommandCheck {
  readonly command: DocumentedCommand;
  /** Why the command would not work as documented; empty when it is fine. */
  readonly problems: readonly string[];
  /** What was left unchecked, and why (e.g. a program that needs the network). */
  readonly notes: readonly string[];
}

export interface CheckContext {
  readonly workspace: Workspace;
  /** Each FLAG_CHECKED_PROGRAMS entry's flags by name, or why they could not be read. */
  readonly flags: ReadonlyMap<string, FlagSpec | Error>;
}

/** Programs documented commands may use that the check does not run, with the reason. */
const EXTERNAL_PROGRAMS: Readonly<Record<string, string>> = {
  git: "git is not run: it needs the network or changes a checkout",
  cargo: "cargo is not run: it needs Rust and minutes of build",
  docker: "docker is not run: it needs a Docker daemon",
  grpcurl: "grpcurl is not run: it needs a running server",
  curl: "curl is not run: it needs a running server",
  kubectl: "kubectl is not run: it needs a cluster",
  helm: "helm is not run: it needs a cluster or Linkerd's charts",
  kustomize: "kustomize is not run: it needs Linkerd's rendered manifests",
  linkerd: "linkerd is not run: it needs Linkerd's CLI and a cluster",
  go: "go is not run",
  npm: "npm is not run: it changes the global install",
  "apt-get": "apt-get is not run: it needs root and the network",
  promtool: "promtool is not run: it needs Debian's prometheus package",
  prometheus: "prometheus is not run: it needs Debian's prometheus package",
};

/** Shell builtins and plain utilities: nothing to check beyond their file arguments. */
const SHELL_PROGRAMS = new Set([
  "export",
  "echo",
  "cat",
  "true",
  "false",
  "set",
  "unset",
  "ls",
  "mkdir",
]);

/**
 * Checks commands in document order; a `cd` carries over to the later commands of its block, and
 * a `cd` out of the repository (into a fresh clone) leaves their paths unchecked.
 */
export function checkDocumentedCommands(
  commands: readonly DocumentedCommand[],
  context: CheckContext,
): CommandCheck[] {
  const checks: CommandCheck[] = [];
  let blockKey = "";
  let cwd: string | undefined = "";
  for (const command of commands) {
    const key = `${command.file}#${command.block}`;
    if (key !== blockKey) {
      blockKey = key;
      // A block's commands start at the root, or in the folder of a package README's package.
      cwd = "";
    }
    const result = checkOne(command, context, cwd);
    cwd = result.cwd;
    checks.push({ command, problems: result.problems, notes: result.notes });
  }
  return checks;
}

interface Findings {
  readonly problems: string[];
  readonly notes: string[];
}

function checkOne(
  command: DocumentedCommand,
  context: CheckContext,
  startCwd: string | undefined,
): { cwd: string | undefined; problems: string[]; notes: string[] } {
  const findings: Findings = { problems: [], notes: [] };
  let cwd = startCwd;
  let simple: ReturnType<typeof parseCommandLine>;
  try {
    simple = parseCommandLine(command.text);
  } catch (err) {
    if (!(err instanceof ShellSyntaxError)) throw err;
    return { cwd, problems: [err.message], notes: [] };
  }
  for (const { words } of simple) {
    const [program, ...args] = words;
    if (program === undefined) continue;
    if (!program.literal) {
      findings.notes.push(`${program.value} is not a literal program name`);
      continue;
    }
    cwd = checkProgram(program.value, args, cwd, context, findings);
  }
  return { cwd, ...findings };
}

function checkProgram(
  program: string,
  args: readonly ShellWord[],
  cwd: string | undefined,
  context: CheckContext,
  findings: Findings,
): string | undefined {
  const values = args.map((a) => a.value);
  switch (program) {
    case "cd": {
      const target = args[0];
      if (cwd === undefined || target === undefined || !target.literal) return undefined;
      const next = posix.normalize(posix.join(cwd, target.value));
      if (next.startsWith("..") || !context.workspace.exists(next)) {
        findings.notes.push(`after cd ${target.value}: outside the repository, paths not checked`);
        return undefined;
      }
      return next === "." ? "" : next;
    }
    case "pnpm":
      checkPnpm(values, cwd, context, findings);
      return cwd;
    case "npx":
      checkNpx(values, cwd, context, findings);
      return cwd;
    case "node":
      checkNode(args, cwd, context, findings);
      return cwd;
    default: {
      const flagged = FLAG_CHECKED_PROGRAMS.find((p) => p.bins.includes(program));
      if (flagged !== undefined) {
        checkProgramFlags(flagged, values, context, findings);
        checkPaths(args, cwd, context.workspace, findings);
        return cwd;
      }
      const external = EXTERNAL_PROGRAMS[program];
      if (external !== undefined) {
        findings.notes.push(external);
        checkPaths(args, cwd, context.workspace, findings);
        return cwd;
      }
      if (SHELL_PROGRAMS.has(program)) {
        checkPaths(args, cwd, context.workspace, findings);
        return cwd;
      }
      if (program.includes("/") && !posix.isAbsolute(program)) {
        // A script of the repository run by its path: it must be there.
        if (cwd !== undefined && !context.workspace.exists(posix.join(cwd, program))) {
          findings.problems.push(`${program}: no such file`);
        } else findings.notes.push(`${program} is not run`);
        checkPaths(args, cwd, context.workspace, findings);
        return cwd;
      }
      findings.problems.push(
        `unknown program ${program} (a typo, or add it to the check's known programs)`,
      );
      return cwd;
    }
  }
}

/** `npx [-y] pnpm@VERSION …` is pnpm; the version must be the one package.json pins. */
function checkNpx(
  args: readonly string[],
  cwd: string | undefined,
  context: CheckContext,
  findings: Findings,
): void {
  const at = args.findIndex((a) => !a.startsWith("-"));
  const target = args[at];
  const pnpm = target === undefined ? null : /^pnpm(?:@(.+))?$/.exec(target);
  if (target === undefined || pnpm === null) {
    findings.notes.push(`npx ${target ?? ""} is not checked`.trimEnd());
    return;
  }
  const version = pnpm[1];
  const pinned = context.workspace.pnpmVersion;
  if (version !== undefined && pinned !== undefined && version !== pinned) {
    findings.problems.push(`npx runs pnpm@${version}, but package.json pins pnpm@${pinned}`);
  }
  checkPnpm(args.slice(at + 1), cwd, context, findings);
}

function checkPnpm(
  args: readonly string[],
  cwd: string | undefined,
  context: CheckContext,
  findings: Findings,
): void {
  const { workspace } = context;
  if (cwd === undefined) {
    findings.notes.push("pnpm outside the repository is not checked");
    return;
  }
  const parsed = parsePnpmCommand(args);
  const targets = pnpmTargets(parsed, cwd, workspace, findings);
  const { action } = parsed;
  if (action.kind === "none" || action.kind === "builtin") return;

  const where = (p: WorkspacePackage) =>
    p.dir === "" ? "package.json (root)" : `${p.dir}/package.json`;
  const hasBin = (p: WorkspacePackage, bin: string) =>
    p.bins.has(bin) || workspace.root.bins.has(bin);

  if (parsed.recursive) {
    const all = [workspace.root, ...workspace.packages];
    const found = all.some((p) => Object.hasOwn(p.scripts, action.name));
    if (!found && !parsed.ifPresent) {
      findings.problems.push(`no workspace package has a script "${action.name}"`);
    }
    return;
  }

  for (const target of targets) {
    const hasScript = Object.hasOwn(target.scripts, action.name);
    if (action.kind === "script" && !hasScript) {
      findings.problems.push(`no script "${action.name}" in ${where(target)}`);
      continue;
    }
    if (action.kind === "exec" && !hasBin(target, action.name)) {
      findings.problems.push(
        `pnpm exec ${action.name}: no binary "${action.name}" in ${target.dir || "the root"}'s node_modules/.bin`,
      );
      continue;
    }
    if (action.kind === "script-or-bin" && !hasScript && !hasBin(target, action.name)) {
      findings.problems.push(
        `no script "${action.name}" in ${where(target)}, and no pnpm command or binary of that name`,
      );
      continue;
    }
    const runsScript = action.kind !== "exec" && hasScript;
    const flagged = FLAG_CHECKED_PROGRAMS.find((p) =>
      runsScript
        ? p.scripts.some((s) => s.dir === target.dir && s.script === action.name)
        : p.bins.includes(action.name),
    );
    if (flagged !== undefined) checkProgramFlags(flagged, action.args, context, findings);
    if (!runsScript && action.name === "turbo") checkTurbo(action.args, workspace, findings);
    checkPaths(
      action.args.map((value) => ({ value, literal: !/[$*?`]/.test(value) })),
      target.dir,
      workspace,
      findings,
    );
  }
}

/** The packages a pnpm command acts in: its filters', or the one it is typed in. */
function pnpmTargets(
  parsed: PnpmCommand,
  cwd: string | undefined,
  workspace: Workspace,
  findings: Findings,
): WorkspacePackage[] {
  if (parsed.filters.length === 0) {
    const here = workspace.packages.find((p) => p.dir === cwd);
    return [here ?? workspace.root];
  }
  const targets: WorkspacePackage[] = [];
  for (const filter of parsed.filters) {
    const name = filterPackageName(filter);
    if (name === undefined) {
      findings.notes.push(`filter ${filter} is not checked`);
      continue;
    }
    const found = findPackage(workspace, name);
    if (found === undefined) {
      findings.problems.push(`no workspace package named ${name} (--filter ${filter})`);
    } else if (!filter.startsWith("!")) {
      targets.push(found);
    }
  }
  return targets;
}

/** `turbo run TASK --filter=PKG…`: the packages exist and some package has the task. */
function checkTurbo(args: readonly string[], workspace: Workspace, findings: Findings): void {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const filter = arg.startsWith("--filter=")
      ? arg.slice("--filter=".length)
      : arg === "--filter" || arg === "-F"
        ? args[++i]
        : undefined;
    if (filter === undefined) continue;
    const name = filterPackageName(filter);
    if (name !== undefined && findPackage(workspace, name) === undefined) {
      findings.problems.push(`turbo: no workspace package named ${name} (--filter ${filter})`);
    }
  }
  if (args[0] === "run" && args[1] !== undefined && !args[1].startsWith("-")) {
    const task = args[1];
    const all = [workspace.root, ...workspace.packages];
    if (!all.some((p) => Object.hasOwn(p.scripts, task))) {
      findings.problems.push(`turbo run ${task}: no workspace package has a script "${task}"`);
    }
  }
}

function checkNode(
  args: readonly ShellWord[],
  cwd: string | undefined,
  context: CheckContext,
  findings: Findings,
): void {
  const scriptAt = args.findIndex((a) => !a.value.startsWith("-"));
  const script = args[scriptAt];
  if (script === undefined) return;
  const rest = args.slice(scriptAt + 1);
  const path =
    cwd === undefined || posix.isAbsolute(script.value)
      ? script.value
      : posix.normalize(posix.join(cwd, script.value));
  if (script.literal && cwd !== undefined && !posix.isAbsolute(script.value)) {
    if (!context.workspace.exists(path))
      findings.problems.push(`node ${script.value}: no such file`);
  }
  const flagged = FLAG_CHECKED_PROGRAMS.find((p) =>
    p.files.some((file) => path === file || path.endsWith(`/${file}`)),
  );
  if (flagged !== undefined) {
    checkProgramFlags(
      flagged,
      rest.map((a) => a.value),
      context,
      findings,
    );
  }
  checkPaths(rest, cwd, context.workspace, findings);
}

function checkProgramFlags(
  program: FlagCheckedProgram,
  args: readonly string[],
  context: CheckContext,
  findings: Findings,
): void {
  const spec = context.flags.get(program.name);
  if (spec === undefined) return;
  if (spec instanceof Error) {
    findings.problems.push(`cannot read the flags of ${program.name}: ${spec.message}`);
    return;
  }
  findings.problems.push(...checkFlags(program.name, spec, args));
}

/**
 * Arguments that name a file of the repository must name one that exists. An argument counts as
 * such a path when it is relative and literal and its first segment exists where the command
 * runs (`examples`, `tooling/…`, `test/x.test.ts` in a package), or it starts with `./`/`../`;
 * `--flag=PATH` values count too. Output files (`--json results.json`) do not exist beforehand
 * and their first segment does not either, so they are left alone.
 */
function checkPaths(
  args: readonly ShellWord[],
  cwd: string | undefined,
  workspace: Workspace,
  findings: Findings,
): void {
  if (cwd === undefined) return;
  for (const arg of args) {
    if (!arg.literal) continue;
    let value = arg.value;
    if (value.startsWith("-")) {
      const eq = value.indexOf("=");
      if (eq < 0) continue;
      value = value.slice(eq + 1);
    }
    if (value === "" || posix.isAbsolute(value) || value.includes("://") || value.includes(":")) {
      continue;
    }
    const explicit = value.startsWith("./") || value.startsWith("../");
    const first = value.split("/")[0] as string;
    if (!explicit && (first === "" || !workspace.exists(posix.join(cwd, first)))) continue;
    const path = posix.normalize(posix.join(cwd, value));
    if (!workspace.exists(path)) findings.problems.push(`${value}: no such file or folder`);
  }
}
