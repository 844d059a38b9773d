import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import type { Logger } from "@destination/core";
import { encodeHeaderBlock } from "../http2/hpack-encoder.js";
import { Http2Connection } from "../http2/http2-connection.js";
import type { Http2ServerStream } from "../http2/http2-stream.js";
import { parseGrpcTimeout } from "./grpc-timeout.js";
import { type PingLimits, PingStrikes } from "./ping-strikes.js";
import { ServerCall } from "./server-call.js";
import { Status } from "./status-code.js";

/** The answer to a request that is not gRPC: HTTP 415 and a line saying why. */
const UNSUPPORTED_MEDIA_TYPE = encodeHeaderBlock([
  [":status", "415"],
  ["content-type", "text/plain; charset=utf-8"],
]);
const UNSUPPORTED_MEDIA_TYPE_BODY = Buffer.from(
  "This is a gRPC server: requests need content-type application/grpc.\n",
);
/**
 * Bytes a connection's socket may buffer before its streams wait: above one update fanned out
 * to a connection's streams in one turn, so only a client that stops reading is held back.
 */
const SOCKET_HIGH_WATER_MARK = 256 * 1024;

/** What serves one method: it reads the call's messages, writes its own, and ends it. */
export type CallHandler = (call: ServerCall) => void;

export interface GrpcHttp2ServerOptions {
  /** 0: no cap of the server's own. */
  readonly maxConcurrentStreams: number;
  readonly pings: PingLimits;
  readonly logger: Logger;
}

/**
 * A plaintext gRPC server on our own HTTP/2 connections (`../http2`): each stream is routed by
 * its `:path` to the handler registered for it, and a call is a thin wrapper around its stream.
 * Our own rather than grpc-js' server: every Get went through grpc-js' interceptor chain,
 * metadata objects and Node streams, about a sixth of the CPU of a cold Get.
 */
export class GrpcHttp2Server {
  readonly #handlers = new Map<string, CallHandler>();
  readonly #connections = new Set<Http2Connection>();
  readonly #server: Server;
  readonly #logger: Logger;
  readonly #pingLimits: PingLimits;
  readonly #maxConcurrentStreams: number;

  constructor(options: GrpcHttp2ServerOptions) {
    this.#logger = options.logger;
    this.#pingLimits = options.pings;
    this.#maxConcurrentStreams = options.maxConcurrentStreams;
    this.#server = createServer({ highWaterMark: SOCKET_HIGH_WATER_MARK }, (socket) =>
      this.#accept(socket),
    );
  }

  /** Serves `path` (`/package.Service/Method`) with `handler`. */
  handle(path: string, handler: CallHandler): void {
    this.#handlers.set(path, handler);
  }

  /** Listens on `host:port` (port 0: any free one); resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      this.#server.once("error", failed);
      this.#server.listen({ host, port }, () => {
        this.#server.off("error", failed);
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
  }

  /**
   * Stops accepting connections and asks each open one to close (GOAWAY) once its streams have
   * ended; after `timeoutMs`, closes what is left. Resolves when every connection is closed.
   */
  shutdown(timeoutMs: number, onTimeout: () => void): Promise<void> {
    return new Promise((resolve) => {
      const force = setTimeout(() => {
        onTimeout();
        for (const connection of this.#connections) connection.destroy();
      }, timeoutMs);
      force.unref();
      this.#server.close(() => {
        clearTimeout(force);
        resolve();
      });
      for (const connection of this.#connections) connection.close();
    });
  }

  #accept(socket: Socket): void {
    const pings = new PingStrikes(this.#pingLimits);
    const connection: Http2Connection = new Http2Connection(socket, {
      maxConcurrentStreams: this.#maxConcurrentStreams,
      onStream: (stream) => this.#route(stream, pings),
      onPing: () => {
        if (!pings.ping(connection.openStreams)) return true;
        this.#logger.debug("client pinged too often; closing its connection");
        return false;
      },
      onClose: () => this.#connections.delete(connection),
      onError: (err) => this.#logger.debug("HTTP/2 connection error", { error: err }),
    });
    this.#connections.add(connection);
  }

  #route(stream: Http2ServerStream, pings: PingStrikes): void {
    const contentType = stream.header("content-type");
    if (contentType === undefined || !contentType.startsWith("application/grpc")) {
      // Answered once the request is complete, its body dropped: the stream goes through the
      // states the client expects, and whatever it sends meanwhile is still checked.
      stream.listen({
        data: () => {},
        end: () => {
          pings.sent();
          stream.respond(UNSUPPORTED_MEDIA_TYPE, false);
          stream.write(UNSUPPORTED_MEDIA_TYPE_BODY);
          stream.end();
        },
      });
      return;
    }
    const path = stream.header(":path") ?? "";
    const timeoutHeader = stream.header("grpc-timeout");
    const timeout = parseGrpcTimeout(timeoutHeader);
    const encoding = stream.header("grpc-encoding");
    const call = new ServerCall(
      stream,
      encoding !== undefined && encoding !== "identity" ? encoding : "",
      timeout === "malformed" ? undefined : timeout,
      () => pings.sent(),
    );
    const handler = this.#handlers.get(path);
    if (handler === undefined) {
      call.end(Status.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    } else if (timeout === "malformed") {
      call.end(Status.INTERNAL, `malformed grpc-timeout: ${timeoutHeader}`);
    } else {
      try {
        handler(call);
      } catch (err) {
        this.#logger.error("gRPC handler failed", { path, error: err });
        call.fail(err);
      }
    }
  }
}
