/** The flags a program accepts, read from its help text, and the check of a documented argv. */

export interface FlagSpec {
  /**
   * `go`: Go's flag package (`-name`, `--name`, `-name=value` alike; names kept without dashes).
   * `gnu`: `--name`, `--name=value` and `-x` (kept with their dashes).
   */
  readonly style: "go" | "gnu";
  /** Flags every invocation accepts. */
  readonly flags: ReadonlySet<string>;
  /** For a program with subcommands: the flags each adds (the first matching word selects). */
  readonly subcommands?: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Go's `flag.PrintDefaults` layout: `  -name type` lines, usage indented below. */
export function parseGoUsage(help: string): FlagSpec {
  const flags = new Set<string>(["h", "help"]);
  for (const line of help.split("\n")) {
    const m = /^\s{1,4}-([A-Za-z0-9][\w.-]*)(\s+\S+)?\s*$/.exec(line);
    if (m) flags.add(m[1] as string);
  }
  return { style: "go", flags };
}

/**
 * A GNU-style help text: flags listed at the start of an indented line (`  -o, --output FORMAT`,
 * `  --once`), or in brackets on a usage line (`[--quick]`).
 */
export function parseGnuHelp(help: string): Set<string> {
  const flags = new Set<string>();
  for (const line of help.split("\n")) {
    const listed = /^\s+((?:-[A-Za-z0-9](?:,\s*|\s+))?--?[A-Za-z][\w-]*)/.exec(line);
    if (listed) {
      for (const flag of (listed[1] as string).split(/,\s*|\s+/)) {
        if (/^--?[A-Za-z]/.test(flag)) flags.add(flag);
      }
    }
    for (const m of line.matchAll(/\[(--?[A-Za-z][\w-]*)/g)) flags.add(m[1] as string);
  }
  return flags;
}

export function gnuSpec(help: string, subcommands?: ReadonlyMap<string, string>): FlagSpec {
  const flags = parseGnuHelp(help);
  if (subcommands === undefined) return { style: "gnu", flags };
  const perCommand = new Map<string, ReadonlySet<string>>();
  for (const [name, text] of subcommands) perCommand.set(name, parseGnuHelp(text));
  return { style: "gnu", flags, subcommands: perCommand };
}

/** The problems with the flags of one documented argv (program name excluded). */
export function checkFlags(program: string, spec: FlagSpec, args: readonly string[]): string[] {
  const problems: string[] = [];
  const sub =
    spec.subcommands === undefined
      ? undefined
      : args.find((a) => !a.startsWith("-") && spec.subcommands?.has(a));
  const extra = sub === undefined ? undefined : spec.subcommands?.get(sub);
  for (const arg of args) {
    // After `--` everything is an operand.
    if (arg === "--") break;
    if (!/^--?[A-Za-z]/.test(arg)) continue;
    const name = arg.split("=", 1)[0] as string;
    if (spec.style === "go") {
      const bare = name.replace(/^--?/, "");
      if (!spec.flags.has(bare)) problems.push(`${program} has no flag -${bare}`);
    } else if (!spec.flags.has(name) && !extra?.has(name)) {
      problems.push(`${program}${sub === undefined ? "" : ` ${sub}`} has no flag ${name}`);
    }
  }
  return problems;
}
