import { systemClock } from "@destination/core";
import { DEFAULT_API_SILENCE_TIMEOUT_MS } from "@destination/k8s-discovery";
import { createServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions, ResolvedServerOptions } from "../server-options.js";

/** The defaults of every option (README "Flags" lists the same for the binary). */
export function resolveOptions(options: DestinationServerOptions): ResolvedServerOptions {
  return {
    addr: options.addr ?? ":8086",
    metricsAddr: options.metricsAddr ?? ":9996",
    enablePprof: options.enablePprof ?? false,
    cluster: options.cluster,
    manifests: options.manifests,
    kubeconfig: options.kubeconfig,
    kubeContext: options.kubeContext,
    kubeApiSilenceTimeoutMs: options.kubeApiSilenceTimeoutMs ?? DEFAULT_API_SILENCE_TIMEOUT_MS,
    controllerNamespace: options.controllerNamespace ?? "linkerd",
    hostname: options.hostname,
    exportQueueMetrics: options.exportQueueMetrics ?? true,
    identityTrustDomain: options.identityTrustDomain ?? "cluster.local",
    clusterDomain: options.clusterDomain ?? "cluster.local",
    forceOpaqueTransport: options.forceOpaqueTransport ?? false,
    enableH2Upgrade: options.enableH2Upgrade ?? true,
    enableEndpointSlices: options.enableEndpointSlices ?? true,
    enableIpv6: options.enableIpv6 ?? true,
    defaultOpaquePorts: options.defaultOpaquePorts ?? new Set(),
    streamQueueCapacity: options.streamQueueCapacity ?? 100,
    meshedHttp2ClientParams: options.meshedHttp2ClientParams,
    extEndpointZoneWeights: options.extEndpointZoneWeights ?? false,
    minPingIntervalMs: options.minPingIntervalMs ?? 10_000,
    keepalivePermitWithoutCalls: options.keepalivePermitWithoutCalls ?? true,
    maxConcurrentStreams: options.maxConcurrentStreams ?? DEFAULT_MAX_CONCURRENT_STREAMS,
    maxReceiveMessageLength: options.maxReceiveMessageLength ?? DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH,
    maxConnectionIdleMs: options.maxConnectionIdleMs ?? 0,
    maxConnectionAgeMs: options.maxConnectionAgeMs ?? 0,
    maxConnectionAgeGraceMs: options.maxConnectionAgeGraceMs ?? 0,
    maxSessionMemoryMb: options.maxSessionMemoryMb ?? 0,
    maxPendingRequests: options.maxPendingRequests ?? DEFAULT_MAX_PENDING_REQUESTS,
    requestMessageTimeoutMs: options.requestMessageTimeoutMs ?? 10_000,
    cacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 60_000,
    auditIntervalMs: options.auditIntervalMs ?? DEFAULT_AUDIT_INTERVAL_MS,
    warmUpServices: options.warmUpServices ?? 256,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    logger: options.logger ?? createServerLogger(),
    remoteClusterFactory: options.remoteClusterFactory,
    clock: options.clock ?? systemClock,
  };
}

/**
 * Streams per connection. A proxy multiplexes every lookup it makes over one connection, often
 * hundreds and in large meshes a few thousand; 10,000 is far above that (and above the 100 per
 * connection the benches open), while still bounding what one connection can hold open.
 */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 10_000;

/**
 * Calls waiting for their request message, server-wide. A real client sends the request with
 * the headers, so even thousands of proxies reconnecting at once keep few calls in this state;
 * each one held costs a few KiB, so 1,000 bounds what streams without a request can hold.
 */
export const DEFAULT_MAX_PENDING_REQUESTS = 1_000;

/** grpc-go's and grpc-js' default: a GetDestination request is a few hundred bytes. */
export const DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH = 4 * 1024 * 1024;

/** The self-audit's interval: a few minutes, so a missed event is found long before a page. */
export const DEFAULT_AUDIT_INTERVAL_MS = 5 * 60_000;
