import type { Logger } from "@destination/core";
import type { FlagValues } from "@destination/go-compat";
import { SERVER_FLAGS } from "./server-flags.js";

/**
 * Every accepted-but-ignored flag, with why its value has no effect. A value other than the
 * default is something the operator asked for and will not get, so it is said once at start; a
 * default asks for nothing.
 */
export const IGNORED_FLAGS = SERVER_FLAGS.flatMap((row) =>
  row.ignored === undefined ? [] : [{ name: row.name, why: row.ignored }],
);

/** Warns once per ignored flag whose value differs from its default. */
export function warnIgnoredFlags(
  values: FlagValues,
  defaults: FlagValues,
  logger: Pick<Logger, "warn">,
): void {
  for (const { name, why } of IGNORED_FLAGS) {
    if (values[name] === defaults[name]) continue;
    logger.warn(`-${name}=${String(values[name])} has no effect: ${why}`, { flag: name });
  }
}
