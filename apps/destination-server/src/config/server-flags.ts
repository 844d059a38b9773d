import type { FlagSpec } from "@destination/go-compat";

/** The meshed HTTP/2 parameters upstream's Helm chart passes (the binary's default is unset). */
export const CHART_MESHED_HTTP2_CLIENT_PARAMS =
  '{"keep_alive":{"interval":{"seconds":10},"timeout":{"seconds":3},"while_idle":true}}';

/**
 * Every flag of `destination-server`: upstream's names and binary defaults, then the flags
 * this implementation adds (backends, keepalive limits, timeouts).
 */
export const SERVER_FLAGS: readonly FlagSpec[] = [
  { name: "addr", kind: "string", default: ":8086", usage: "address to serve on" },
  {
    name: "metrics-addr",
    kind: "string",
    default: ":9996",
    usage: "address to serve scrapable metrics on",
  },
  {
    name: "kubeconfig",
    kind: "string",
    default: "",
    usage: "path to kube config (empty: $KUBECONFIG, ~/.kube/config, then in-cluster)",
  },
  {
    name: "controller-namespace",
    kind: "string",
    default: "linkerd",
    usage: "namespace in which Linkerd is installed",
  },
  {
    name: "identity-trust-domain",
    kind: "string",
    default: "",
    usage: "configures the name suffix used for identities (empty: cluster.local)",
  },
  {
    name: "cluster-domain",
    kind: "string",
    default: "",
    usage: "kubernetes cluster domain (empty: cluster.local)",
  },
  {
    name: "outbound-transport-mode",
    kind: "string",
    default: "transparent",
    usage: "transparent or transport-header: how meshed endpoints are reached",
  },
  {
    name: "enable-h2-upgrade",
    kind: "bool",
    default: "true",
    usage: "enable transparently upgraded HTTP2 connections among pods in the service mesh",
  },
  {
    name: "enable-endpoint-slices",
    kind: "bool",
    default: "true",
    usage: "enable the usage of EndpointSlice informers and resources",
  },
  {
    name: "enable-ipv6",
    kind: "bool",
    default: "true",
    usage: "serve IPv6 endpoints (and prefer them for dual-stack pods); requires EndpointSlices",
  },
  {
    name: "default-opaque-ports",
    kind: "string",
    default: "",
    usage: "configures the default opaque ports",
  },
  {
    name: "stream-queue-capacity",
    kind: "int",
    default: "100",
    usage: "messages buffered per stream before a slow stream is ended",
  },
  {
    name: "meshed-http2-client-params",
    kind: "string",
    default: "",
    usage: "JSON HTTP/2 client parameters for meshed connections (empty: none sent)",
  },
  {
    name: "ext-endpoint-zone-weights",
    kind: "bool",
    default: "false",
    usage: "weight same-zone endpoints ten times higher",
  },
  {
    name: "enable-pprof",
    kind: "bool",
    default: "false",
    usage: "Enable pprof endpoints on the admin server",
  },
  {
    name: "export-queue-metrics",
    kind: "bool",
    default: "true",
    usage: "export the ExternalWorkload controller's work queue metrics",
  },
  { name: "trace-collector", kind: "string", default: "", usage: "accepted; tracing is not sent" },
  {
    name: "kube-apiclient-qps",
    kind: "float",
    default: "100",
    usage: "accepted for compatibility; the Kubernetes client does not throttle",
  },
  {
    name: "kube-apiclient-burst",
    kind: "int",
    default: "200",
    usage: "accepted for compatibility; the Kubernetes client does not throttle",
  },
  {
    name: "log-level",
    kind: "string",
    default: "info",
    usage: "log level: panic, fatal, error, warn (warning), info, debug or trace; any case",
  },
  {
    name: "log-format",
    kind: "string",
    default: "plain",
    usage: "log format: json, or plain for any other value",
  },
  { name: "version", kind: "bool", default: "false", usage: "print the version and exit" },
  // Added by this implementation.
  { name: "context", kind: "string", default: "", usage: "kubeconfig context to use" },
  {
    name: "kube-api-silence-timeout",
    kind: "string",
    default: "12s",
    usage:
      "how long a connection to the Kubernetes API server may show no life before it is destroyed and the list or watch resumes (a watch gets 60s more, for the bookmarks of a quiet watch; TCP keepalive finds a dead path within max(this, 11s))",
  },
  {
    name: "external-workload-controller",
    kind: "bool",
    default: "true",
    usage:
      "write the EndpointSlices of Services that select ExternalWorkloads, under upstream's Lease, when -enable-endpoint-slices is true (as upstream always does); false for a read-only server beside Linkerd's own",
  },
  {
    name: "manifests",
    kind: "string",
    default: "",
    usage: "serve a folder of YAML/JSON manifests (watched for changes) instead of a cluster",
  },
  {
    name: "grpc-min-ping-interval",
    kind: "string",
    default: "10s",
    usage: "shortest interval between client HTTP/2 pings the server accepts",
  },
  {
    name: "grpc-keepalive-permit-without-calls",
    kind: "bool",
    default: "true",
    usage: "accept client HTTP/2 pings on connections without open streams",
  },
  {
    name: "grpc-max-concurrent-streams",
    kind: "int",
    default: "10000",
    usage: "streams per connection (0: no cap)",
  },
  {
    name: "grpc-max-recv-msg-size",
    kind: "int",
    default: "4194304",
    usage: "largest request message accepted, in bytes, compressed or inflated",
  },
  {
    name: "grpc-max-connection-idle",
    kind: "string",
    default: "0s",
    usage: "close a connection without calls for this long (0s: never)",
  },
  {
    name: "grpc-max-connection-age",
    kind: "string",
    default: "0s",
    usage: "close a connection this old, with GOAWAY (0s: never)",
  },
  {
    name: "grpc-max-connection-age-grace",
    kind: "string",
    default: "0s",
    usage: "how long calls may run on a connection closed for its age (0s: no limit)",
  },
  {
    name: "grpc-max-session-memory",
    kind: "int",
    default: "0",
    usage: "HTTP/2 memory per connection in MB before new streams are refused (0: no cap)",
  },
  {
    name: "grpc-max-pending-requests",
    kind: "int",
    default: "1000",
    usage:
      "calls waiting for their request message, over all connections, before more are refused (0: no cap)",
  },
  {
    name: "grpc-request-message-timeout",
    kind: "string",
    default: "10s",
    usage: "how long a call may take to send its request message (0s: no limit)",
  },
  {
    name: "cache-sync-timeout",
    kind: "string",
    default: "60s",
    usage: "how long to wait for the caches to sync before exiting",
  },
  {
    name: "audit-interval",
    kind: "string",
    default: "5m",
    usage:
      "how often every Get stream is compared with fresh lists from the API server, ±10% (0s: off; cluster backend only)",
  },
  {
    name: "shutdown-timeout",
    kind: "string",
    default: "10s",
    usage: "how long a graceful shutdown may take before connections are closed",
  },
];
