// The binary's command line and the defaults of what it leaves out: `parseCommandLine` reads the
// flags (after upstream's optional `destination` subcommand, warning about the flags accepted
// without effect); `resolveOptions` fills in what a command line or an embedder did not set.
import type { Logger } from "@destination/core";
import { silentLogger, systemClock } from "@destination/core";
import type { FlagValues } from "@destination/go-compat";
import { defaultFlagValues, parseGoFlags } from "@destination/go-compat";
import type { LogFormat, LogLevel, ServerLogger } from "../logging/server-logger.js";
import { createServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions, ResolvedServerOptions } from "../server-options.js";
import { ConfigError, convertFlags } from "./server-flag.js";
import { type FlagOptions, SERVER_FLAGS } from "./server-flags.js";

export { ConfigError };

/** What the command line asks for, before anything starts. */
export interface CommandLine {
  readonly version: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Turns the flags into server options; warnings (defaults applied) go to the logger. */
  readonly options: (logger: ServerLogger) => Promise<DestinationServerOptions & FlagOptions>;
}

/** A logger that keeps what is said, for the server's logger once there is one. */
function recorder(): { log: Logger; replay(to: Logger): void } {
  const said: [keyof Logger, Parameters<Logger["warn"]>][] = [];
  const keep =
    (level: keyof Logger) =>
    (...args: Parameters<Logger["warn"]>) =>
      void said.push([level, args]);
  return {
    log: { debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") },
    replay: (to) => {
      for (const [level, args] of said) to[level](...args);
    },
  };
}

/**
 * Parses and validates the command line (see README "Flags"). Throws FlagError or ConfigError
 * with a one-line message for anything the server cannot start with.
 */
export function parseCommandLine(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): CommandLine {
  const values = parseGoFlags(SERVER_FLAGS, withoutSubcommand(args));
  // Every value is converted now, so a bad one fails before anything starts; what the
  // conversions say waits for the logger the log flags configure.
  const said = recorder();
  const { byName, options } = convertFlags(SERVER_FLAGS, values, said.log);
  if (values["enable-ipv6"] === true && values["enable-endpoint-slices"] !== true) {
    throw new ConfigError("-enable-ipv6=true requires -enable-endpoint-slices=true");
  }
  if (values.manifests !== "" && (values.kubeconfig !== "" || values.context !== "")) {
    throw new ConfigError("-manifests cannot be combined with -kubeconfig or -context");
  }
  return {
    version: byName.version === true,
    logLevel: byName["log-level"] as LogLevel,
    logFormat: byName["log-format"] as LogFormat,
    options: async (logger) => {
      said.replay(logger);
      warnIgnoredFlags(values, defaultFlagValues(SERVER_FLAGS), logger);
      return {
        ...(options as FlagOptions),
        // The ExternalWorkload controller's Lease identity, the pod's name in Kubernetes; left
        // out, the controller does not run.
        ...(byName["external-workload-controller"] === true
          ? { hostname: env.HOSTNAME ?? null }
          : {}),
        logger,
      };
    },
  };
}

/** Upstream's controller binary runs `controller destination ...`; the chart passes that word. */
const SUBCOMMAND = "destination";

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

/**
 * The options with the defaults of those left out: each flag's, converted as on a command line
 * (silently: a default is nothing to warn about), then those of the options no flag sets.
 */
export function resolveOptions(options: DestinationServerOptions): ResolvedServerOptions {
  const flagDefaults = convertFlags(SERVER_FLAGS, defaultFlagValues(SERVER_FLAGS), silentLogger);
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return {
    ...(flagDefaults.options as FlagOptions),
    cluster: undefined,
    hostname: undefined,
    warmUpServices: 256,
    remoteClusterFactory: undefined,
    clock: systemClock,
    ...(Object.fromEntries(given) as DestinationServerOptions),
    logger: options.logger ?? createServerLogger(),
  };
}
