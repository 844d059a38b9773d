// Command-line parsing with the rules of Go's `flag` package, which upstream's binary uses:
// `-name value`, `--name value`, `-name=value`; booleans as bare `-name` or `-name=false`.

export type FlagKind = "string" | "bool" | "int" | "float";

export interface FlagSpec {
  readonly name: string;
  readonly kind: FlagKind;
  readonly default: string;
  readonly usage: string;
}

export type FlagValues = Record<string, string | number | boolean>;

/** A command line Go would reject; `message` is one line. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

/** `-h` / `--help` was given. */
export class HelpRequested extends Error {
  override readonly name = "HelpRequested";
}

function parseBool(text: string): boolean | undefined {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(text)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(text)) return false;
  return undefined;
}

function convert(spec: FlagSpec, text: string): string | number | boolean {
  const invalid = (why: string) =>
    new FlagError(`invalid value "${text}" for flag -${spec.name}: ${why}`);
  switch (spec.kind) {
    case "string":
      return text;
    case "bool": {
      const value = parseBool(text);
      if (value === undefined) throw invalid("parse error");
      return value;
    }
    case "int": {
      if (!/^[+-]?[0-9]+$/.test(text)) throw invalid("parse error");
      const value = Number(text);
      if (!Number.isSafeInteger(value)) throw invalid("value out of range");
      return value;
    }
    case "float": {
      const value = Number(text);
      if (text.trim() === "" || Number.isNaN(value)) throw invalid("parse error");
      return value;
    }
  }
}

/** Every flag's default value, converted. */
export function defaultFlagValues(specs: readonly FlagSpec[]): FlagValues {
  return Object.fromEntries(specs.map((s) => [s.name, convert(s, s.default)]));
}

/**
 * Parses `args` (without the program name). Unlike Go, positional arguments are an error: the
 * binary takes none, and `-enable-ipv6 false` would otherwise silently mean `true`.
 */
export function parseGoFlags(specs: readonly FlagSpec[], args: readonly string[]): FlagValues {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values = defaultFlagValues(specs);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      if (i + 1 < args.length) throw new FlagError(`unexpected argument: ${args[i + 1]}`);
      break;
    }
    if (arg.length < 2 || !arg.startsWith("-")) {
      throw new FlagError(`unexpected argument: ${arg}`);
    }
    const body = arg.startsWith("--") ? arg.slice(2) : arg.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      throw new FlagError(`bad flag syntax: ${arg}`);
    }
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    const spec = byName.get(name);
    if (spec === undefined) {
      if (name === "h" || name === "help") throw new HelpRequested();
      throw new FlagError(`flag provided but not defined: -${name}`);
    }
    if (spec.kind === "bool") {
      values[name] = inline === undefined ? true : convert(spec, inline);
      continue;
    }
    let text = inline;
    if (text === undefined) {
      if (i + 1 >= args.length) throw new FlagError(`flag needs an argument: -${name}`);
      i += 1;
      text = args[i] ?? "";
    }
    values[name] = convert(spec, text);
  }
  return values;
}

/** The usage text, one flag per entry as Go's PrintDefaults lays it out. */
export function formatUsage(program: string, specs: readonly FlagSpec[]): string {
  const lines = [`Usage of ${program}:`];
  for (const spec of specs) {
    const type = spec.kind === "bool" ? "" : ` ${spec.kind === "string" ? "string" : spec.kind}`;
    lines.push(`  -${spec.name}${type}`);
    const shown = spec.kind === "string" ? `"${spec.default}"` : spec.default;
    const defaultNote =
      spec.default === "" || spec.default === "false" ? "" : ` (default ${shown})`;
    lines.push(`    \t${spec.usage}${defaultNote}`);
  }
  return `${lines.join("\n")}\n`;
}
