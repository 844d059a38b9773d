import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { ServerLogger } from "../logging/server-logger.js";
import { debugEndpointsReply, type EndpointsReporter } from "./endpoints-report.js";
import type { PprofProfiler } from "./pprof.js";
import { PPROF_PATH_PREFIX, pprofReply } from "./pprof.js";

export interface AdminServer {
  readonly port: number;
  /** Flips `/ready` to 200. */
  markReady(): void;
  /** Enables `/debug/endpoints` (it answers 503 before: the caches are not synced). */
  serveEndpointsReport(reporter: EndpointsReporter): void;
  close(): Promise<void>;
}

export interface AdminServerOptions {
  host: string;
  port: number;
  registry: Registry;
  logger: ServerLogger;
  /** Serves `/debug/pprof/` (`-enable-pprof=true`); without it those paths are 404. */
  pprof?: PprofProfiler;
}

/**
 * The admin HTTP server: `/metrics`, `/ping` (and `/live`), `/ready`,
 * `/debug/endpoints?service=ns/name`, `/debug/pprof/` when given a profiler; 404 otherwise.
 * It listens before the caches sync so that probes and scrapes work during startup.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  let ready = false;
  let endpointsReporter: EndpointsReporter | undefined;
  const { registry, logger, pprof } = options;
  const server: Server = createServer((req, res) => {
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const query = queryAt < 0 ? "" : url.slice(queryAt + 1);
    const reply = (code: number, body: string, type = "text/plain; charset=utf-8") => {
      res.writeHead(code, { "content-type": type, "content-length": Buffer.byteLength(body) });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    if (pprof !== undefined && path.startsWith(PPROF_PATH_PREFIX)) {
      pprofReply(path, new URLSearchParams(query), pprof).then(
        ({ status, headers, body }) => {
          res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) });
          res.end(req.method === "HEAD" ? undefined : body);
        },
        (err: unknown) => {
          logger.error("pprof profile failed", { error: err, path });
          reply(500, "profile failed\n");
        },
      );
      return;
    }
    switch (path) {
      case "/metrics":
        registry.metrics().then(
          (text) => reply(200, text, registry.contentType),
          (err: unknown) => {
            logger.error("metrics collection failed", { error: err });
            reply(500, "metrics collection failed\n");
          },
        );
        return;
      case "/ping":
      case "/live":
        reply(200, "pong\n");
        return;
      case "/ready":
        if (ready) reply(200, "ok\n");
        else reply(500, "not ready\n");
        return;
      case "/debug/endpoints": {
        const { status, body } = debugEndpointsReply(new URLSearchParams(query), endpointsReporter);
        reply(status, `${JSON.stringify(body, null, 2)}\n`, "application/json");
        return;
      }
      default:
        reply(404, "404 page not found\n");
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const host = options.host === "" ? undefined : options.host;
    server.listen({ host, port: options.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (err) => logger.error("admin server error", { error: err }));
  return {
    port: (server.address() as AddressInfo).port,
    markReady() {
      ready = true;
    },
    serveEndpointsReport(reporter) {
      endpointsReporter = reporter;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
