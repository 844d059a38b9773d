import { silentLogger, systemClock } from "@destination/core";
import { defaultFlagValues } from "@destination/go-compat";
import { createServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions, ResolvedServerOptions } from "../server-options.js";
import { convertFlags } from "./server-flag.js";
import { type FlagOptions, SERVER_FLAGS } from "./server-flags.js";

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
