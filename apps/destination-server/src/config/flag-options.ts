import { parseDefaultOpaquePorts } from "@destination/core";
import {
  defaultFlagValues,
  type FlagValues,
  parseGoDuration,
  parseGoFlags,
} from "@destination/go-compat";
import type { LogFormat, LogLevel, ServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions } from "../server-options.js";
import { ConfigError } from "./config-error.js";
import { parseHttp2ClientParams } from "./http2-client-params.js";
import { warnIgnoredFlags } from "./ignored-flags.js";
import { parseListenAddress } from "./listen-address.js";
import { parseLogFormatFlag, parseLogLevelFlag } from "./log-flags.js";
import { SERVER_FLAGS } from "./server-flags.js";
import { withoutSubcommand } from "./subcommand.js";

export { ConfigError };

/** What the command line asks for, before anything starts. */
export interface CommandLine {
  readonly version: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /**
   * Turns the flags into server options; warnings (defaults applied) go to the logger. Async
   * because it loads the cluster packages, which `--version` and flag errors never need.
   */
  readonly options: (logger: ServerLogger) => Promise<DestinationServerOptions>;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function durationFlag(values: FlagValues, name: string): number {
  const text = String(values[name]);
  try {
    const ms = Number(parseGoDuration(text)) / 1_000_000;
    if (ms < 0) throw new Error("negative");
    return ms;
  } catch {
    throw new ConfigError(`invalid value "${text}" for flag -${name}: invalid duration`);
  }
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
  const str = (name: string) => String(values[name]);
  const bool = (name: string) => values[name] === true;

  const logLevel = parseLogLevelFlag(str("log-level"));
  if (logLevel === undefined) {
    throw new ConfigError(`invalid value "${str("log-level")}" for flag -log-level: unknown level`);
  }
  const logFormat = parseLogFormatFlag(str("log-format"));
  for (const name of ["addr", "metrics-addr"]) {
    try {
      parseListenAddress(str(name));
    } catch (err) {
      throw new ConfigError(`invalid value "${str(name)}" for flag -${name}: ${messageOf(err)}`);
    }
  }
  const capacity = values["stream-queue-capacity"] as number;
  if (capacity <= 0) {
    throw new ConfigError(
      `invalid value "${capacity}" for flag -stream-queue-capacity: must be greater than 0`,
    );
  }
  let meshedHttp2ClientParams: DestinationServerOptions["meshedHttp2ClientParams"];
  try {
    meshedHttp2ClientParams = parseHttp2ClientParams(str("meshed-http2-client-params"));
  } catch (err) {
    throw new ConfigError(`invalid value for flag -meshed-http2-client-params: ${messageOf(err)}`);
  }
  if (bool("enable-ipv6") && !bool("enable-endpoint-slices")) {
    throw new ConfigError("-enable-ipv6=true requires -enable-endpoint-slices=true");
  }
  if (str("manifests") !== "" && (str("kubeconfig") !== "" || str("context") !== "")) {
    throw new ConfigError("-manifests cannot be combined with -kubeconfig or -context");
  }
  const maxStreams = values["grpc-max-concurrent-streams"] as number;
  if (maxStreams < 0) {
    throw new ConfigError(
      `invalid value "${maxStreams}" for flag -grpc-max-concurrent-streams: must not be negative`,
    );
  }
  const maxRecvMsgSize = values["grpc-max-recv-msg-size"] as number;
  if (maxRecvMsgSize <= 0) {
    throw new ConfigError(
      `invalid value "${maxRecvMsgSize}" for flag -grpc-max-recv-msg-size: must be greater than 0`,
    );
  }
  const maxSessionMemory = values["grpc-max-session-memory"] as number;
  if (maxSessionMemory < 0) {
    throw new ConfigError(
      `invalid value "${maxSessionMemory}" for flag -grpc-max-session-memory: must not be negative`,
    );
  }
  const maxPendingRequests = values["grpc-max-pending-requests"] as number;
  if (maxPendingRequests < 0) {
    throw new ConfigError(
      `invalid value "${maxPendingRequests}" for flag -grpc-max-pending-requests: must not be negative`,
    );
  }
  const requestMessageTimeoutMs = durationFlag(values, "grpc-request-message-timeout");
  const maxConnectionIdleMs = durationFlag(values, "grpc-max-connection-idle");
  const maxConnectionAgeMs = durationFlag(values, "grpc-max-connection-age");
  const maxConnectionAgeGraceMs = durationFlag(values, "grpc-max-connection-age-grace");
  const minPingIntervalMs = durationFlag(values, "grpc-min-ping-interval");
  const cacheSyncTimeoutMs = durationFlag(values, "cache-sync-timeout");
  const shutdownTimeoutMs = durationFlag(values, "shutdown-timeout");
  const auditIntervalMs = durationFlag(values, "audit-interval");
  const kubeApiSilenceTimeoutMs = durationFlag(values, "kube-api-silence-timeout");
  if (kubeApiSilenceTimeoutMs <= 0) {
    // Zero would mean no bound at all: a dead connection would go unnoticed for minutes.
    throw new ConfigError(
      `invalid value "${str("kube-api-silence-timeout")}" for flag -kube-api-silence-timeout: must be positive`,
    );
  }

  return {
    version: bool("version"),
    logLevel,
    logFormat: logFormat.format,
    options: async (logger) => {
      if (!logFormat.known) {
        logger.warn(`unknown -log-format "${str("log-format")}", using plain`);
      }
      warnIgnoredFlags(values, defaultFlagValues(SERVER_FLAGS), logger);
      const orDefault = (name: string) => {
        if (str(name) !== "") return str(name);
        logger.warn(`expected -${name} to be set, using cluster.local`);
        return "cluster.local";
      };
      const mode = str("outbound-transport-mode");
      if (mode !== "transparent" && mode !== "transport-header") {
        logger.error(`unknown outbound-transport-mode "${mode}", using transparent`);
      }
      return {
        addr: str("addr"),
        metricsAddr: str("metrics-addr"),
        enablePprof: bool("enable-pprof"),
        ...(str("manifests") !== "" ? { manifests: str("manifests") } : {}),
        ...(str("kubeconfig") !== "" ? { kubeconfig: str("kubeconfig") } : {}),
        ...(str("context") !== "" ? { kubeContext: str("context") } : {}),
        controllerNamespace: str("controller-namespace"),
        // The ExternalWorkload controller's Lease identity, the pod's name in Kubernetes; left
        // out, the controller does not run.
        ...(bool("external-workload-controller") ? { hostname: env.HOSTNAME ?? null } : {}),
        exportQueueMetrics: bool("export-queue-metrics"),
        identityTrustDomain: orDefault("identity-trust-domain"),
        clusterDomain: orDefault("cluster-domain"),
        forceOpaqueTransport: mode === "transport-header",
        enableH2Upgrade: bool("enable-h2-upgrade"),
        enableEndpointSlices: bool("enable-endpoint-slices"),
        enableIpv6: bool("enable-ipv6"),
        defaultOpaquePorts: parseDefaultOpaquePorts(str("default-opaque-ports"), logger),
        streamQueueCapacity: capacity,
        ...(meshedHttp2ClientParams !== undefined ? { meshedHttp2ClientParams } : {}),
        extEndpointZoneWeights: bool("ext-endpoint-zone-weights"),
        minPingIntervalMs,
        keepalivePermitWithoutCalls: bool("grpc-keepalive-permit-without-calls"),
        maxConcurrentStreams: maxStreams,
        maxReceiveMessageLength: maxRecvMsgSize,
        maxConnectionIdleMs,
        maxConnectionAgeMs,
        maxConnectionAgeGraceMs,
        maxSessionMemoryMb: maxSessionMemory,
        maxPendingRequests,
        requestMessageTimeoutMs,
        cacheSyncTimeoutMs,
        auditIntervalMs,
        shutdownTimeoutMs,
        kubeApiSilenceTimeoutMs,
        logger,
      };
    },
  };
}
