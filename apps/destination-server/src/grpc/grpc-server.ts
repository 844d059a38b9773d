import { joinHostPort } from "@destination/go-compat";
import { type DestinationServer, DestinationService } from "@destination/proto";
import * as grpc from "@grpc/grpc-js";
import type { ServerLogger } from "../logging/server-logger.js";
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

/**
 * grpc-js never answers client pings with `too_many_pings`; the keepalive options are still
 * passed so the limits are visible (and take effect should grpc-js start enforcing them).
 */
function channelOptions(options: GrpcTransportOptions): grpc.ServerOptions {
  return {
    "grpc.keepalive_permit_without_calls": options.keepalivePermitWithoutCalls ? 1 : 0,
    "grpc.http2.min_ping_interval_without_data_ms": options.minPingIntervalMs,
    "grpc.http2.min_time_between_pings_ms": options.minPingIntervalMs,
    ...(options.maxConcurrentStreams > 0
      ? { "grpc.max_concurrent_streams": options.maxConcurrentStreams }
      : {}),
  };
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
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
}

/**
 * Builds the gRPC server up to binding, with health and reflection (whose library loads at the
 * first reflection call), while the caches sync.
 */
export async function prepareGrpcServer(
  transport: GrpcTransportOptions,
  logger: ServerLogger,
): Promise<PreparedGrpcServer> {
  const server = new grpc.Server(channelOptions(transport));
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
  server: grpc.Server,
  health: HealthStatuses,
  destination: DestinationServer,
  listen: { host: string; port: number },
  logger: ServerLogger,
): Promise<GrpcServer> {
  server.addService(DestinationService, destination);

  let port: number;
  if (listen.host === "") {
    // Every interface: dual-stack where the host has IPv6, IPv4 otherwise.
    port = await bind(server, joinHostPort("::", listen.port)).catch(() =>
      bind(server, joinHostPort("0.0.0.0", listen.port)),
    );
  } else {
    port = await bind(server, joinHostPort(listen.host, listen.port));
  }
  logger.info("gRPC server listening", { addr: joinHostPort(listen.host, port) });

  return {
    port,
    shutdown(timeoutMs) {
      health.setStatus("", ServingStatus.NOT_SERVING);
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          logger.warn("graceful shutdown timed out; closing connections");
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
