// A row of the flags table (server-flags.ts), the conversions rows share, and ConfigError, what a
// value the server cannot start with is refused with.
import type { Logger } from "@destination/core";
import type { FlagKind, FlagSpec, FlagValues } from "@destination/go-compat";
import { parseGoDuration, splitHostPort } from "@destination/go-compat";

/** A flag's value as Go's flag parser reads it, by kind. */
type ValueOf<K extends FlagKind> = K extends "bool"
  ? boolean
  : K extends "string"
    ? string
    : number;

/**
 * One row of the flags table: the Go flag and the server option it sets, so that a flag, its
 * default and its option are written once. `convert` turns the flag's value into the option's,
 * for a command line and for a default alike; it throws an Error with the reason for a value the
 * server cannot start with (a ConfigError is the whole message), and says anything else on `log`.
 */
export interface ServerFlag<K extends FlagKind = FlagKind, O extends string = string, V = unknown>
  extends FlagSpec {
  readonly kind: K;
  /** The option it sets; none for the flags the command line reads itself (log, version). */
  readonly option?: O;
  // Method syntax: a table of rows of every kind is then one array type.
  convert?(value: ValueOf<K>, log: Logger, name: string): V;
  /** Upstream's flag, accepted without effect here: why, for the warning when it is set. */
  readonly ignored?: string;
}

/** A row, typed by what it sets (an option's type is its conversion's result). */
export function flag<const K extends FlagKind, const O extends string = never, V = ValueOf<K>>(
  row: ServerFlag<K, O, V>,
): ServerFlag<K, O, V> {
  return row;
}

/** The options a table sets: each row's option key with its conversion's result. */
export type OptionsOf<R extends ServerFlag> = {
  readonly [Row in R as NonNullable<Row["option"]>]: ReturnType<NonNullable<Row["convert"]>>;
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Every row's converted value by flag name, and the options they set (an undefined value sets
 * none: an empty `-manifests` is no manifests). Throws a one-line ConfigError.
 */
export function convertFlags(
  rows: readonly ServerFlag[],
  values: FlagValues,
  log: Logger,
): { byName: Record<string, unknown>; options: Record<string, unknown> } {
  const byName: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const row of rows) {
    const value = values[row.name] as ValueOf<FlagKind>;
    try {
      byName[row.name] =
        row.convert === undefined ? value : row.convert(value as never, log, row.name);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`invalid value "${value}" for flag -${row.name}: ${messageOf(err)}`);
    }
    if (row.option !== undefined && byName[row.name] !== undefined) {
      options[row.option] = byName[row.name];
    }
  }
  return { byName, options };
}

/** A flag value the server cannot start with; the message is the one line printed. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Where a server listens: `host` "" means every interface, `port` 0 a free port. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses Go-style listen addresses: `:8086`, `127.0.0.1:0`, `[::1]:9996`. */
export function parseListenAddress(text: string): ListenAddress {
  const split = splitHostPort(text);
  if (typeof split === "string") throw new Error(split);
  if (!/^[0-9]{1,5}$/.test(split.port) || Number(split.port) > 65535) {
    throw new Error(`address ${text}: invalid port`);
  }
  return { host: split.host, port: Number(split.port) };
}

// The conversions the flags table's rows share; each throws the reason a value is refused.

/** An empty value sets no option (no manifests, the default kubeconfig). */
export const unlessEmpty = (text: string): string | undefined => (text === "" ? undefined : text);

/** A Go listen address, kept as text: the server parses it again where it listens. */
export function listenAddress(text: string): string {
  parseListenAddress(text);
  return text;
}

/** A Go duration in milliseconds; negative ones are refused. */
export function milliseconds(text: string): number {
  let ms = -1;
  try {
    ms = Number(parseGoDuration(text)) / 1_000_000;
  } catch {
    // Refused below, as a negative one.
  }
  if (ms < 0) throw new Error("invalid duration");
  return ms;
}

export function greaterThanZero(n: number): number {
  if (n <= 0) throw new Error("must be greater than 0");
  return n;
}

export function notNegative(n: number): number {
  if (n < 0) throw new Error("must not be negative");
  return n;
}

/** An empty domain falls back to `cluster.local`, with a warning, as upstream. */
export function orClusterLocal(text: string, log: { warn(message: string): void }, name: string) {
  if (text !== "") return text;
  log.warn(`expected -${name} to be set, using cluster.local`);
  return "cluster.local";
}
