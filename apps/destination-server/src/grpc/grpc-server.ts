import { toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { MetricsRegistry } from "@destination/core";
import { joinHostPort } from "@destination/go-compat";
import {
  type DestinationServer,
  DestinationService,
  destinationApiFiles,
  file_grpc_health_v1_health,
} from "@destination/proto";
import type { ServerOptions } from "@grpc/grpc-js";
import * as grpc from "@grpc/grpc-js";
import type { EnumTypeDefinition, PackageDefinition } from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation } from "grpc-health-check";
import type { ServerLogger } from "../logging/server-logger.js";
import { type RequestAdmissionLimits, requestAdmission } from "./request-admission.js";

export interface GrpcServer {
  readonly port: number;
  /** Stops accepting, waits for calls to finish up to `timeoutMs`, then closes what is left. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** A gRPC server with health and reflection, not yet serving Destination nor bound. */
export interface PreparedGrpcServer {
  /**
   * Adds Destination and binds. Called only once the caches have synced, so the port
   * accepts connections only when answers are complete.
   */
  start(
    destination: DestinationServer,
    listen: { host: string; port: number },
  ): Promise<GrpcServer>;
  /** Releases what was built when the server will not start (the caches did not sync). */
  discard(): Promise<void>;
}

/**
 * The grpc-js server of either thread, up to binding: the limits' options, health and
 * reflection. `onRefused` counts calls the request admission ended.
 */
export function buildGrpcServer(
  limits: GrpcLimits,
  onRefused: (reason: "pending" | "timeout") => void,
): { server: grpc.Server; health: HealthImplementation } {
  const server = new grpc.Server(grpcServerOptions(limits, onRefused));
  const health = new HealthImplementation({
    "": "SERVING",
    "io.linkerd.proxy.destination.Destination": "SERVING",
  });
  health.addToServer(server);
  addReflection(server);
  return { server, health };
}

/** The counter of calls the request admission ended, in the discovery thread's registry. */
export function refusedCounter(metrics: MetricsRegistry): (reason: "pending" | "timeout") => void {
  const refused = metrics.counter(
    "grpc_server_requests_refused_total",
    "Calls ended before their request message arrived: too many waiting (pending), or too slow (timeout).",
    ["reason"],
  );
  return (reason) => refused.inc({ reason });
}

/** Builds the grpc-js server up to binding, with health and reflection, while the caches sync. */
export function prepareGrpcServer(
  limits: GrpcLimits,
  logger: ServerLogger,
  metrics: MetricsRegistry,
): PreparedGrpcServer {
  const { server, health } = buildGrpcServer(limits, refusedCounter(metrics));
  return {
    async start(destination, listen) {
      server.addService(DestinationService, destination);
      const port = await bindGrpcServer(server, listen.host, listen.port);
      logger.info("gRPC server listening", { addr: joinHostPort(listen.host, port) });
      return {
        port,
        async shutdown(timeoutMs) {
          const forced = await shutdownGrpcServer(server, health, timeoutMs);
          if (forced) logger.warn("graceful shutdown timed out; closing connections");
        },
      };
    },
    // Nothing is bound before start.
    discard: async () => {},
  };
}

/** Binds `host:port`; `""` is every interface, dual-stack where the host has IPv6. */
export function bindGrpcServer(server: grpc.Server, host: string, port: number): Promise<number> {
  const bind = (h: string) =>
    new Promise<number>((resolve, reject) => {
      server.bindAsync(joinHostPort(h, port), grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      );
    });
  return host === "" ? bind("::").catch(() => bind("0.0.0.0")) : bind(host);
}

/**
 * Stops accepting and waits for calls to finish up to `timeoutMs`, then closes what is left;
 * resolves true when it had to.
 */
export function shutdownGrpcServer(
  server: grpc.Server,
  health: HealthImplementation,
  timeoutMs: number,
): Promise<boolean> {
  health.setStatus("", "NOT_SERVING");
  return new Promise<boolean>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve(true);
    }, timeoutMs);
    force.unref();
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve(false);
    });
  });
}

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

/** The limits alone, out of options that hold more (a logger, a clock), for another thread. */
export function grpcLimitsOf(options: GrpcLimits): GrpcLimits {
  return {
    maxPendingRequests: options.maxPendingRequests,
    requestMessageTimeoutMs: options.requestMessageTimeoutMs,
    maxConcurrentStreams: options.maxConcurrentStreams,
    maxReceiveMessageLength: options.maxReceiveMessageLength,
    maxConnectionIdleMs: options.maxConnectionIdleMs,
    maxConnectionAgeMs: options.maxConnectionAgeMs,
    maxConnectionAgeGraceMs: options.maxConnectionAgeGraceMs,
    maxSessionMemoryMb: options.maxSessionMemoryMb,
  };
}

/**
 * The grpc-js options of those limits. A limit at 0 is left out, so grpc-js' own default applies
 * (none of them caps anything by default, except the message length). Calls still waiting for
 * their request message are bounded by our own interceptor (`requestAdmission`).
 */
function grpcServerOptions(
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

/** Every file the server describes, dependencies first: the Destination API and gRPC health. */
const SERVED_FILES = [...destinationApiFiles, file_grpc_health_v1_health];

/**
 * The protoc-compiled FileDescriptorProtos, encoded as they are. Going through proto-loader's
 * `loadSync`/`loadFileDescriptorSetFromBuffer` instead rebuilds them from protobufjs objects,
 * which turns type references relative (`net.TcpAddress`) and renames map entries, and grpcurl
 * then refuses to describe or call anything.
 */
function servedFileDescriptors(): Buffer[] {
  return SERVED_FILES.map((f) => Buffer.from(toBinary(FileDescriptorProtoSchema, f.proto)));
}

/**
 * Server reflection (grpc.reflection.v1 and v1alpha) by @grpc/reflection, so that
 * `grpcurl -plaintext` lists, describes and calls the services without .proto files.
 *
 * The library indexes the `fileDescriptorProtos` of each entry of the package definition it is
 * given, and nothing else of them; one entry carrying our descriptors is the whole input.
 */
function addReflection(server: Pick<grpc.Server, "addService">): void {
  const descriptors: EnumTypeDefinition = {
    format: "Protocol Buffer 3 EnumDescriptorProto",
    type: {},
    fileDescriptorProtos: servedFileDescriptors(),
  };
  const pkg: PackageDefinition = { "destination.served-files": descriptors };
  new ReflectionService(pkg).addToServer(server);
}
