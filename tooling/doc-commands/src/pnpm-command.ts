/** What a `pnpm …` command line asks pnpm to do. */

/**
 * pnpm's own commands (pnpm 10–12), which run no package script. `test` and `start` are left
 * out on purpose: they run the package's script of that name, which must exist.
 */
export const PNPM_BUILTINS: ReadonlySet<string> = new Set([
  "add",
  "approve-builds",
  "audit",
  "bin",
  "cache",
  "cat-file",
  "cat-index",
  "config",
  "create",
  "dedupe",
  "deploy",
  "dlx",
  "doctor",
  "env",
  "exec",
  "fetch",
  "find-hash",
  "i",
  "ignored-builds",
  "import",
  "init",
  "install",
  "install-test",
  "it",
  "licenses",
  "link",
  "list",
  "ll",
  "ln",
  "ls",
  "outdated",
  "pack",
  "patch",
  "patch-commit",
  "patch-remove",
  "prune",
  "publish",
  "rb",
  "rebuild",
  "remove",
  "rm",
  "root",
  "run",
  "run-script",
  "sbom",
  "self-update",
  "server",
  "setup",
  "store",
  "un",
  "uninstall",
  "unlink",
  "up",
  "update",
  "upgrade",
  "why",
]);

/** pnpm's aliases that run a script of the same package. */
const SCRIPT_ALIASES: Readonly<Record<string, string>> = {
  test: "test",
  t: "test",
  tst: "test",
  start: "start",
};

/** Options before the command that take a value as the next word. */
const OPTIONS_WITH_VALUE = new Set(["-F", "--filter", "-C", "--dir", "--workspace-concurrency"]);

export type PnpmAction =
  /** `pnpm run X`, `pnpm X` where X is not a builtin, `pnpm test`/`start`. */
  | { readonly kind: "script-or-bin"; readonly name: string; readonly args: readonly string[] }
  /** `pnpm run X` / `pnpm test`: only a script will do. */
  | { readonly kind: "script"; readonly name: string; readonly args: readonly string[] }
  /** `pnpm exec X`: a binary of the package. */
  | { readonly kind: "exec"; readonly name: string; readonly args: readonly string[] }
  | { readonly kind: "builtin"; readonly name: string; readonly args: readonly string[] }
  /** `pnpm` alone, or only options. */
  | { readonly kind: "none" };

export interface PnpmCommand {
  /** `-F`/`--filter` selectors, as written. */
  readonly filters: readonly string[];
  readonly recursive: boolean;
  readonly ifPresent: boolean;
  readonly action: PnpmAction;
}

/** `args` are the words after `pnpm`. */
export function parsePnpmCommand(args: readonly string[]): PnpmCommand {
  const filters: string[] = [];
  let recursive = false;
  let ifPresent = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("-")) break;
    if (arg.startsWith("--filter=")) filters.push(arg.slice("--filter=".length));
    else if (arg === "-F" || arg === "--filter") filters.push(args[++i] ?? "");
    else if (arg === "-r" || arg === "--recursive") recursive = true;
    else if (arg === "--if-present") ifPresent = true;
    else if (OPTIONS_WITH_VALUE.has(arg)) i++;
  }
  const name = args[i];
  const rest = args.slice(i + 1);
  const done = (action: PnpmAction): PnpmCommand => ({ filters, recursive, ifPresent, action });
  if (name === undefined) return done({ kind: "none" });
  if (name === "run" || name === "run-script") {
    // `pnpm run --if-present X` also exists.
    const scriptAt = rest.findIndex((a) => !a.startsWith("-"));
    if (rest.includes("--if-present")) ifPresent = true;
    if (scriptAt < 0) return done({ kind: "builtin", name, args: rest });
    return done({
      kind: "script",
      name: rest[scriptAt] as string,
      args: rest.slice(scriptAt + 1),
    });
  }
  if (name === "exec") {
    const binAt = rest.findIndex((a) => !a.startsWith("-"));
    if (binAt < 0) return done({ kind: "builtin", name, args: rest });
    return done({ kind: "exec", name: rest[binAt] as string, args: rest.slice(binAt + 1) });
  }
  const alias = SCRIPT_ALIASES[name];
  if (alias !== undefined) return done({ kind: "script", name: alias, args: rest });
  if (PNPM_BUILTINS.has(name)) return done({ kind: "builtin", name, args: rest });
  return done({ kind: "script-or-bin", name, args: rest });
}

/**
 * The package name a filter selects, or undefined for selectors that are not one package name
 * (`./path`, `{dir}`, `[since]`, globs). `@x/y...`, `...@x/y`, `@x/y^...` select by name too.
 */
export function filterPackageName(filter: string): string | undefined {
  let name = filter.startsWith("!") ? filter.slice(1) : filter;
  name = name.replace(/^\.\.\.\^?/, "").replace(/\^?\.\.\.$/, "");
  if (name === "" || /[*{[./]/.test(name.replace(/^@[^/]+\//, ""))) return undefined;
  if (name.startsWith(".")) return undefined;
  return name;
}
