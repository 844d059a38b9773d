import { parseDefaultOpaquePorts } from "@destination/core";
import { DEFAULT_API_SILENCE_TIMEOUT_MS } from "@destination/k8s-discovery";
import { parseLogFormatFlag, parseLogLevelFlag } from "../logging/server-logger.js";
import { parseHttp2ClientParams } from "./http2-client-params.js";
import {
  ConfigError,
  flag,
  greaterThanZero,
  listenAddress,
  milliseconds,
  notNegative,
  type OptionsOf,
  orClusterLocal,
  unlessEmpty,
} from "./server-flag.js";

/** The meshed HTTP/2 parameters upstream's Helm chart passes (the binary's default is unset). */
export const CHART_MESHED_HTTP2_CLIENT_PARAMS =
  '{"keep_alive":{"interval":{"seconds":10},"timeout":{"seconds":3},"while_idle":true}}';

function logLevel(text: string) {
  const level = parseLogLevelFlag(text);
  if (level === undefined) throw new Error("unknown level");
  return level;
}

function logFormat(text: string, log: { warn(message: string): void }) {
  const { format, known } = parseLogFormatFlag(text);
  if (!known) log.warn(`unknown -log-format "${text}", using plain`);
  return format;
}

/** Upstream forces opaque transport for exactly `transport-header` and refuses no value. */
function transportHeader(mode: string, log: { error(message: string): void }) {
  if (mode !== "transparent" && mode !== "transport-header") {
    log.error(`unknown outbound-transport-mode "${mode}", using transparent`);
  }
  return mode === "transport-header";
}

function http2ClientParams(text: string, _log: unknown, name: string) {
  try {
    return parseHttp2ClientParams(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`invalid value for flag -${name}: ${why}`);
  }
}

/** Zero would mean no bound at all: a dead connection would go unnoticed for minutes. */
function positiveMilliseconds(text: string) {
  const ms = milliseconds(text);
  if (ms <= 0) throw new Error("must be positive");
  return ms;
}

/**
 * Every flag of `destination-server`, in `-h` order: upstream's names and binary defaults, then
 * the flags this implementation adds. The server options, their defaults for
 * `startDestinationServer`, the parser and the usage text all come from here.
 */
export const SERVER_FLAGS = [
  flag({
    name: "addr",
    kind: "string",
    default: ":8086",
    usage: "address to serve on",
    option: "addr",
    convert: listenAddress,
  }),
  flag({
    name: "metrics-addr",
    kind: "string",
    default: ":9996",
    usage: "address to serve scrapable metrics on",
    option: "metricsAddr",
    convert: listenAddress,
  }),
  flag({
    name: "kubeconfig",
    kind: "string",
    default: "",
    usage: "path to kube config (empty: $KUBECONFIG, ~/.kube/config, then in-cluster)",
    option: "kubeconfig",
    convert: unlessEmpty,
  }),
  flag({
    name: "controller-namespace",
    kind: "string",
    default: "linkerd",
    usage: "namespace in which Linkerd is installed",
    option: "controllerNamespace",
  }),
  flag({
    name: "identity-trust-domain",
    kind: "string",
    default: "",
    usage: "configures the name suffix used for identities (empty: cluster.local)",
    option: "identityTrustDomain",
    convert: orClusterLocal,
  }),
  flag({
    name: "cluster-domain",
    kind: "string",
    default: "",
    usage: "kubernetes cluster domain (empty: cluster.local)",
    option: "clusterDomain",
    convert: orClusterLocal,
  }),
  flag({
    name: "outbound-transport-mode",
    kind: "string",
    default: "transparent",
    usage: "transparent or transport-header: how meshed endpoints are reached",
    option: "forceOpaqueTransport",
    convert: transportHeader,
  }),
  flag({
    name: "enable-h2-upgrade",
    kind: "bool",
    default: "true",
    usage: "enable transparently upgraded HTTP2 connections among pods in the service mesh",
    option: "enableH2Upgrade",
  }),
  flag({
    name: "enable-endpoint-slices",
    kind: "bool",
    default: "true",
    usage: "enable the usage of EndpointSlice informers and resources",
    option: "enableEndpointSlices",
  }),
  flag({
    name: "enable-ipv6",
    kind: "bool",
    default: "true",
    usage: "serve IPv6 endpoints (and prefer them for dual-stack pods); requires EndpointSlices",
    option: "enableIpv6",
  }),
  flag({
    name: "default-opaque-ports",
    kind: "string",
    default: "",
    usage: "configures the default opaque ports",
    option: "defaultOpaquePorts",
    convert: (text, log): ReadonlySet<number> => parseDefaultOpaquePorts(text, log),
  }),
  flag({
    name: "stream-queue-capacity",
    kind: "int",
    default: "100",
    usage: "messages buffered per stream before a slow stream is ended",
    option: "streamQueueCapacity",
    convert: greaterThanZero,
  }),
  flag({
    name: "meshed-http2-client-params",
    kind: "string",
    default: "",
    usage: "JSON HTTP/2 client parameters for meshed connections (empty: none sent)",
    option: "meshedHttp2ClientParams",
    convert: http2ClientParams,
  }),
  flag({
    name: "ext-endpoint-zone-weights",
    kind: "bool",
    default: "false",
    usage: "weight same-zone endpoints ten times higher",
    option: "extEndpointZoneWeights",
  }),
  flag({
    name: "enable-pprof",
    kind: "bool",
    default: "false",
    usage: "Enable pprof endpoints on the admin server",
    option: "enablePprof",
  }),
  flag({
    name: "export-queue-metrics",
    kind: "bool",
    default: "true",
    usage: "export the ExternalWorkload controller's work queue metrics",
    option: "exportQueueMetrics",
  }),
  flag({
    name: "trace-collector",
    kind: "string",
    default: "",
    usage: "accepted; tracing is not sent",
    ignored: "traces are not sent",
  }),
  flag({
    name: "kube-apiclient-qps",
    kind: "float",
    default: "100",
    usage: "accepted for compatibility; the Kubernetes client does not throttle",
    ignored: "the Kubernetes client does not throttle",
  }),
  flag({
    name: "kube-apiclient-burst",
    kind: "int",
    default: "200",
    usage: "accepted for compatibility; the Kubernetes client does not throttle",
    ignored: "the Kubernetes client does not throttle",
  }),
  flag({
    name: "log-level",
    kind: "string",
    default: "info",
    usage: "log level: panic, fatal, error, warn (warning), info, debug or trace; any case",
    convert: logLevel,
  }),
  flag({
    name: "log-format",
    kind: "string",
    default: "plain",
    usage: "log format: json, or plain for any other value",
    convert: logFormat,
  }),
  flag({ name: "version", kind: "bool", default: "false", usage: "print the version and exit" }),
  // Added by this implementation.
  flag({
    name: "context",
    kind: "string",
    default: "",
    usage: "kubeconfig context to use",
    option: "kubeContext",
    convert: unlessEmpty,
  }),
  flag({
    name: "kube-api-silence-timeout",
    kind: "string",
    // k8s-discovery's own default, written as a Go duration.
    default: `${DEFAULT_API_SILENCE_TIMEOUT_MS / 1000}s`,
    usage:
      "how long a connection to the Kubernetes API server may show no life before it is destroyed and the list or watch resumes (a watch gets 60s more, for the bookmarks of a quiet watch; TCP keepalive finds a dead path within max(this, 11s))",
    option: "kubeApiSilenceTimeoutMs",
    convert: positiveMilliseconds,
  }),
  flag({
    name: "external-workload-controller",
    kind: "bool",
    default: "true",
    usage:
      "write the EndpointSlices of Services that select ExternalWorkloads, under upstream's Lease, when -enable-endpoint-slices is true (as upstream always does); false for a read-only server beside Linkerd's own",
  }),
  flag({
    name: "manifests",
    kind: "string",
    default: "",
    usage: "serve a folder of YAML/JSON manifests (watched for changes) instead of a cluster",
    option: "manifests",
    convert: unlessEmpty,
  }),
  flag({
    name: "grpc-min-ping-interval",
    kind: "string",
    default: "10s",
    usage: "shortest interval between client HTTP/2 pings the server accepts",
    option: "minPingIntervalMs",
    convert: milliseconds,
  }),
  flag({
    name: "grpc-keepalive-permit-without-calls",
    kind: "bool",
    default: "true",
    usage: "accept client HTTP/2 pings on connections without open streams",
    option: "keepalivePermitWithoutCalls",
  }),
  // A proxy multiplexes every lookup over one connection, often hundreds, in large meshes a few
  // thousand: 10,000 is far above that and still bounds what one connection holds open.
  flag({
    name: "grpc-max-concurrent-streams",
    kind: "int",
    default: "10000",
    usage: "streams per connection (0: no cap)",
    option: "maxConcurrentStreams",
    convert: notNegative,
  }),
  // grpc-go's and grpc-js' default, 4 MiB: a GetDestination request is a few hundred bytes.
  flag({
    name: "grpc-max-recv-msg-size",
    kind: "int",
    default: "4194304",
    usage: "largest request message accepted, in bytes, compressed or inflated",
    option: "maxReceiveMessageLength",
    convert: greaterThanZero,
  }),
  flag({
    name: "grpc-max-connection-idle",
    kind: "string",
    default: "0s",
    usage: "close a connection without calls for this long (0s: never)",
    option: "maxConnectionIdleMs",
    convert: milliseconds,
  }),
  flag({
    name: "grpc-max-connection-age",
    kind: "string",
    default: "0s",
    usage: "close a connection this old, with GOAWAY (0s: never)",
    option: "maxConnectionAgeMs",
    convert: milliseconds,
  }),
  flag({
    name: "grpc-max-connection-age-grace",
    kind: "string",
    default: "0s",
    usage: "how long calls may run on a connection closed for its age (0s: no limit)",
    option: "maxConnectionAgeGraceMs",
    convert: milliseconds,
  }),
  flag({
    name: "grpc-max-session-memory",
    kind: "int",
    default: "0",
    usage: "HTTP/2 memory per connection in MB before new streams are refused (0: no cap)",
    option: "maxSessionMemoryMb",
    convert: notNegative,
  }),
  // A real client sends its request with the headers, so even thousands of proxies reconnecting
  // keep few calls waiting; each costs a few KiB, so 1,000 bounds what they can hold.
  flag({
    name: "grpc-max-pending-requests",
    kind: "int",
    default: "1000",
    usage:
      "calls waiting for their request message, over all connections, before more are refused (0: no cap)",
    option: "maxPendingRequests",
    convert: notNegative,
  }),
  flag({
    name: "grpc-request-message-timeout",
    kind: "string",
    default: "10s",
    usage: "how long a call may take to send its request message (0s: no limit)",
    option: "requestMessageTimeoutMs",
    convert: milliseconds,
  }),
  // Off by default until a storm's gain is worth a second V8 isolate's memory (BENCHMARKS.md).
  flag({
    name: "grpc-serving-thread",
    kind: "bool",
    default: "false",
    usage:
      "serve gRPC (HTTP/2, grpc-js) on a thread of its own, beside the caches and watchers, so that a storm of new streams uses a second core",
    option: "grpcServingThread",
  }),
  flag({
    name: "cache-sync-timeout",
    kind: "string",
    default: "60s",
    usage: "how long to wait for the caches to sync before exiting",
    option: "cacheSyncTimeoutMs",
    convert: milliseconds,
  }),
  // A few minutes: a missed event is found long before anyone is paged.
  flag({
    name: "audit-interval",
    kind: "string",
    default: "5m",
    usage:
      "how often every Get stream is compared with fresh lists from the API server, ±10% (0s: off; cluster backend only)",
    option: "auditIntervalMs",
    convert: milliseconds,
  }),
  flag({
    name: "shutdown-timeout",
    kind: "string",
    default: "10s",
    usage: "how long a graceful shutdown may take before connections are closed",
    option: "shutdownTimeoutMs",
    convert: milliseconds,
  }),
] as const;

/** The options the flags set, as their conversions return them (every one has a default). */
export type FlagOptions = OptionsOf<(typeof SERVER_FLAGS)[number]>;
