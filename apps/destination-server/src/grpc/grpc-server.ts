import { joinHostPort } from "@destination/go-compat";
import { DestinationService, type GetDestination } from "@destination/proto";
import type { ServerLogger } from "../logging/server-logger.js";
import { GrpcHttp2Server } from "../transport/grpc-http2-server.js";
import { serverStreaming } from "../transport/method-handlers.js";
import type { ServerCall } from "../transport/server-call.js";
import { HealthStatuses, ServingStatus } from "./health.js";
import { addReflection } from "./reflection.js";

export interface GrpcTransportOptions {
  /** Shortest client ping interval accepted (README "Transport and keepalive"). */
  readonly minPingIntervalMs: number;
  readonly keepalivePermitWithoutCalls: boolean;
  /** 0: no cap of the server's own (a proxy multiplexes hundreds of lookups on one connection). */
  readonly maxConcurrentStreams: number;
}

export interface GrpcServer {
  readonly port: number;
  /** Stops accepting, waits for calls to finish up to `timeoutMs`, then closes what is left. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** The two Destination methods, each given the call and its decoded request. */
export interface DestinationHandlers {
  get(call: ServerCall, request: GetDestination): void;
  getProfile(call: ServerCall, request: GetDestination): void;
}

/** A gRPC server with health and reflection, not yet serving Destination nor bound. */
export interface PreparedGrpcServer {
  /**
   * Adds Destination and binds. Called only once the caches have synced, so the port
   * accepts connections only when answers are complete.
   */
  start(
    destination: DestinationHandlers,
    listen: { host: string; port: number },
  ): Promise<GrpcServer>;
}

/**
 * Builds the gRPC server up to binding, with health and reflection (whose library loads at the
 * first reflection call), while the caches sync.
 */
export function prepareGrpcServer(
  transport: GrpcTransportOptions,
  logger: ServerLogger,
): PreparedGrpcServer {
  const server = new GrpcHttp2Server({
    maxConcurrentStreams: transport.maxConcurrentStreams,
    pings: {
      minPingIntervalMs: transport.minPingIntervalMs,
      permitWithoutCalls: transport.keepalivePermitWithoutCalls,
    },
    logger,
  });
  const health = new HealthStatuses({
    "": ServingStatus.SERVING,
    "io.linkerd.proxy.destination.Destination": ServingStatus.SERVING,
  });
  health.addToServer(server);
  addReflection(server);
  return {
    start: (destination, listen) => startPrepared(server, health, destination, listen, logger),
  };
}

async function startPrepared(
  server: GrpcHttp2Server,
  health: HealthStatuses,
  destination: DestinationHandlers,
  listen: { host: string; port: number },
  logger: ServerLogger,
): Promise<GrpcServer> {
  for (const [method, handler] of [
    [DestinationService.get, destination.get],
    [DestinationService.getProfile, destination.getProfile],
  ] as const) {
    server.handle(method.path, serverStreaming(method, handler));
  }

  let port: number;
  if (listen.host === "") {
    // Every interface: dual-stack where the host has IPv6, IPv4 otherwise.
    port = await server
      .listen("::", listen.port)
      .catch(() => server.listen("0.0.0.0", listen.port));
  } else {
    port = await server.listen(listen.host, listen.port);
  }
  logger.info("gRPC server listening", { addr: joinHostPort(listen.host, port) });

  return {
    port,
    shutdown(timeoutMs) {
      health.setStatus("", ServingStatus.NOT_SERVING);
      return server.shutdown(timeoutMs, () =>
        logger.warn("graceful shutdown timed out; closing connections"),
      );
    },
  };
}
