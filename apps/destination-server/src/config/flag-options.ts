import type { Logger } from "@destination/core";
import { defaultFlagValues, parseGoFlags } from "@destination/go-compat";
import type { LogFormat, LogLevel, ServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions } from "../server-options.js";
import { ConfigError } from "./config-error.js";
import { warnIgnoredFlags } from "./ignored-flags.js";
import { convertFlags } from "./server-flag.js";
import { type FlagOptions, SERVER_FLAGS } from "./server-flags.js";
import { withoutSubcommand } from "./subcommand.js";

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
