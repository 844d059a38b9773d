// The server options that shape what a Get or GetProfile answers, read from a server command
// line by the binary's own parser: a reference (`dst audit`) run with them answers as the audited
// server does. Every other flag (addresses, the source, logging, limits, timeouts) is parsed and
// validated the same way, then left out: it does not change an answer.
import { parseCommandLine } from "../config/flag-options.js";
import type { ServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions } from "../server-options.js";

/** The options that change answers, as the translators and watchers read them. */
export type ReferenceOptions = Pick<
  DestinationServerOptions,
  | "controllerNamespace"
  | "identityTrustDomain"
  | "clusterDomain"
  | "forceOpaqueTransport"
  | "enableH2Upgrade"
  | "enableEndpointSlices"
  | "enableIpv6"
  | "defaultOpaquePorts"
  | "meshedHttp2ClientParams"
  | "extEndpointZoneWeights"
>;

/**
 * The answer-shaping options of a `destination-server` command line (upstream's verbatim form
 * too: a leading `destination`, the flags it accepts and ignores). Throws the binary's own
 * FlagError or ConfigError for a command line it would refuse to start with.
 */
export async function referenceOptionsFromArgs(
  args: readonly string[],
  logger: ServerLogger,
): Promise<ReferenceOptions> {
  const options = await parseCommandLine(args, {}).options(logger);
  return {
    controllerNamespace: options.controllerNamespace,
    identityTrustDomain: options.identityTrustDomain,
    clusterDomain: options.clusterDomain,
    forceOpaqueTransport: options.forceOpaqueTransport,
    enableH2Upgrade: options.enableH2Upgrade,
    enableEndpointSlices: options.enableEndpointSlices,
    enableIpv6: options.enableIpv6,
    defaultOpaquePorts: options.defaultOpaquePorts,
    ...(options.meshedHttp2ClientParams !== undefined
      ? { meshedHttp2ClientParams: options.meshedHttp2ClientParams }
      : {}),
    extEndpointZoneWeights: options.extEndpointZoneWeights,
  };
}
