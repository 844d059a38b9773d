import type { MetricsRegistry } from "@destination/core";
import { joinHostPort } from "@destination/go-compat";
import { type DestinationServer, DestinationService } from "@destination/proto";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import type { ServerLogger } from "../logging/server-logger.js";
import { type GrpcLimits, grpcServerOptions } from "./grpc-server-options.js";
import { addReflection } from "./reflection.js";

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
}

/** Builds the grpc-js server up to binding, with health and reflection, while the caches sync. */
export function prepareGrpcServer(
  limits: GrpcLimits,
  logger: ServerLogger,
  metrics: MetricsRegistry,
): PreparedGrpcServer {
  const refused = metrics.counter(
    "grpc_server_requests_refused_total",
    "Calls ended before their request message arrived: too many waiting (pending), or too slow (timeout).",
    ["reason"],
  );
  const server = new grpc.Server(grpcServerOptions(limits, (reason) => refused.inc({ reason })));
  const health = new HealthImplementation({
    "": "SERVING",
    "io.linkerd.proxy.destination.Destination": "SERVING",
  });
  health.addToServer(server);
  addReflection(server);
  return {
    start: (destination, listen) => startPrepared(server, health, destination, listen, logger),
  };
}

function bind(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(joinHostPort(host, port), grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
}

async function startPrepared(
  server: grpc.Server,
  health: HealthImplementation,
  destination: DestinationServer,
  listen: { host: string; port: number },
  logger: ServerLogger,
): Promise<GrpcServer> {
  server.addService(DestinationService, destination);

  let port: number;
  if (listen.host === "") {
    // Every interface: dual-stack where the host has IPv6, IPv4 otherwise.
    port = await bind(server, "::", listen.port).catch(() => bind(server, "0.0.0.0", listen.port));
  } else {
    port = await bind(server, listen.host, listen.port);
  }
  logger.info("gRPC server listening", { addr: joinHostPort(listen.host, port) });

  return {
    port,
    shutdown(timeoutMs) {
      health.setStatus("", "NOT_SERVING");
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
