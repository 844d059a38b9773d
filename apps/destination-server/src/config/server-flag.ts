import type { Logger } from "@destination/core";
import type { FlagKind, FlagSpec, FlagValues } from "@destination/go-compat";
import { ConfigError } from "./config-error.js";

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
