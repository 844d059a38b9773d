import type { ServerOptions } from "@grpc/grpc-js";
import { type RequestAdmissionLimits, requestAdmission } from "./request-admission.js";

/** The server's limits, each from a flag (README "Transport and limits"). */
export interface GrpcLimits extends RequestAdmissionLimits {
  /** Streams per connection; 0: no cap. */
  readonly maxConcurrentStreams: number;
  /** Request message size, compressed and inflated, in bytes. */
  readonly maxReceiveMessageLength: number;
  /** 0: never. */
  readonly maxConnectionIdleMs: number;
  /** 0: never. */
  readonly maxConnectionAgeMs: number;
  /** 0: no limit. */
  readonly maxConnectionAgeGraceMs: number;
  /** 0: grpc-js' default (no cap). */
  readonly maxSessionMemoryMb: number;
}

/**
 * The grpc-js options of those limits. A limit at 0 is left out, so grpc-js' own default applies
 * (none of them caps anything by default, except the message length). Calls still waiting for
 * their request message are bounded by our own interceptor (`requestAdmission`).
 */
export function grpcServerOptions(
  limits: GrpcLimits,
  onRefused?: (reason: "pending" | "timeout") => void,
): ServerOptions {
  const options: ServerOptions = {
    "grpc.max_receive_message_length": limits.maxReceiveMessageLength,
    // The server offers no channelz service, so nothing could read what grpc-js would collect
    // for it: per connection and per call trackers, a trace, and a clock read for every message
    // sent (a tenth of accepting a call, in profiles of a storm of new Gets).
    "grpc.enable_channelz": 0,
    interceptors: [requestAdmission(limits, onRefused)],
  };
  if (limits.maxConcurrentStreams > 0) {
    options["grpc.max_concurrent_streams"] = limits.maxConcurrentStreams;
  }
  if (limits.maxConnectionIdleMs > 0) {
    options["grpc.max_connection_idle_ms"] = limits.maxConnectionIdleMs;
  }
  if (limits.maxConnectionAgeMs > 0) {
    options["grpc.max_connection_age_ms"] = limits.maxConnectionAgeMs;
  }
  if (limits.maxConnectionAgeGraceMs > 0) {
    options["grpc.max_connection_age_grace_ms"] = limits.maxConnectionAgeGraceMs;
  }
  if (limits.maxSessionMemoryMb > 0) {
    options["grpc-node.max_session_memory"] = limits.maxSessionMemoryMb;
  }
  return options;
}
