import { ConfigError } from "./config-error.js";

/** Upstream's controller binary runs `controller destination ...`; the chart passes that word. */
export const SUBCOMMAND = "destination";

/**
 * The flags after an optional leading `destination`, so the chart's `args` start this binary
 * unchanged. Any other leading word is refused: it is a different controller (or a typo), and
 * serving discovery in its place would hide that.
 */
export function withoutSubcommand(args: readonly string[]): readonly string[] {
  const first = args[0];
  if (first === undefined || first.startsWith("-")) return args;
  if (first === SUBCOMMAND) return args.slice(1);
  throw new ConfigError(`unknown subcommand "${first}": the only one is ${SUBCOMMAND}`);
}
