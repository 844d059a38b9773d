/** The repository's own programs whose flags documented commands are checked against. */

export interface FlagCheckedProgram {
  /** How findings name it. */
  readonly name: string;
  /** Names under node_modules/.bin (`dst …`, `pnpm exec dst …`). */
  readonly bins: readonly string[];
  /** Package scripts that pass their arguments to it: package folder ("" = root) and script. */
  readonly scripts: readonly { readonly dir: string; readonly script: string }[];
  /** Files `node FILE …` runs it from; a path ending in one of these (a deployed copy) counts. */
  readonly files: readonly string[];
  /** `node` arguments, from the repository root, that print its help on stdout. */
  readonly helpArgv: readonly string[];
  readonly style: "go" | "gnu";
  /** For a program with subcommands: the argv that prints one subcommand's help. */
  readonly subcommandHelpArgv?: (subcommand: string) => readonly string[];
}

export const FLAG_CHECKED_PROGRAMS: readonly FlagCheckedProgram[] = [
  {
    name: "dst",
    bins: ["dst"],
    scripts: [],
    files: ["apps/cli/bin/dst.js"],
    helpArgv: ["apps/cli/bin/dst.js", "--help"],
    style: "gnu",
    subcommandHelpArgv: (subcommand) => ["apps/cli/bin/dst.js", "help", subcommand],
  },
  {
    name: "destination-server",
    bins: ["destination-server"],
    scripts: [],
    files: ["apps/destination-server/bin/destination-server.js", "bin/destination-server.js"],
    helpArgv: ["apps/destination-server/bin/destination-server.js", "--help"],
    style: "go",
  },
  {
    name: "pnpm bench",
    bins: [],
    scripts: [
      { dir: "", script: "bench" },
      { dir: "tooling/bench", script: "bench" },
    ],
    files: ["tooling/bench/run.mjs", "tooling/bench/dist/main.js"],
    helpArgv: ["tooling/bench/dist/main.js", "--help"],
    style: "gnu",
  },
  {
    name: "pnpm soak",
    bins: [],
    scripts: [{ dir: "", script: "soak" }],
    files: ["tooling/scripts/soak.mjs"],
    helpArgv: ["tooling/scripts/soak.mjs", "--help"],
    style: "gnu",
  },
  {
    name: "pnpm check:doc-commands",
    bins: [],
    scripts: [{ dir: "", script: "check:doc-commands" }],
    files: ["tooling/doc-commands/bin/check-doc-commands.js"],
    helpArgv: ["tooling/doc-commands/bin/check-doc-commands.js", "--help"],
    style: "gnu",
  },
];

/**
 * The subcommands a `dst --help`-like text lists on its usage lines (`  dst get AUTHORITY`);
 * `help` itself adds no flags.
 */
export function listedSubcommands(program: string, help: string): string[] {
  const names = new Set<string>();
  const line = new RegExp(`^\\s+${program}\\s+([a-z][\\w-]*)`);
  for (const text of help.split("\n")) {
    const m = line.exec(text);
    if (m && m[1] !== "help") names.add(m[1] as string);
  }
  return [...names];
}
