import {
  constants,
  createServer,
  type Http2Server,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo } from "node:net";
import type { Logger } from "@destination/core";
import { parseGrpcTimeout } from "./grpc-timeout.js";
import { type PingLimits, PingStrikes } from "./ping-strikes.js";
import { ServerCall } from "./server-call.js";
import { Status } from "./status-code.js";

/** What serves one method: it reads the call's messages, writes its own, and ends it. */
export type CallHandler = (call: ServerCall) => void;

export interface GrpcHttp2ServerOptions {
  /** 0: no cap of the server's own. */
  readonly maxConcurrentStreams: number;
  readonly pings: PingLimits;
  readonly logger: Logger;
}

/** What the server keeps per connection. */
interface Connection {
  readonly pings: PingStrikes;
  openCalls: number;
  lastStreamId: number;
}

/**
 * A plaintext gRPC server on node's HTTP/2: each stream is routed by its `:path` to the handler
 * registered for it. Our own rather than grpc-js' server: every Get went through grpc-js'
 * interceptor chain, metadata objects and Node streams, about a sixth of the CPU of a cold Get;
 * here a call is a thin wrapper around its HTTP/2 stream.
 */
export class GrpcHttp2Server {
  readonly #handlers = new Map<string, CallHandler>();
  readonly #connections = new Map<Http2Session, Connection>();
  readonly #http2: Http2Server;
  readonly #logger: Logger;
  readonly #pingLimits: PingLimits;

  constructor(options: GrpcHttp2ServerOptions) {
    this.#logger = options.logger;
    this.#http2 = createServer({
      // As grpc-js' server: node's own limit on a session's buffered memory degrades badly when
      // reached; each stream's queue is bounded by the server instead.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      ...(options.maxConcurrentStreams > 0
        ? { settings: { maxConcurrentStreams: options.maxConcurrentStreams } }
        : {}),
    });
    this.#pingLimits = options.pings;
    this.#http2.on("session", (session) => this.#connectionOf(session));
    this.#http2.on("stream", (stream, headers) => this.#route(stream, headers));
  }

  /** Serves `path` (`/package.Service/Method`) with `handler`. */
  handle(path: string, handler: CallHandler): void {
    this.#handlers.set(path, handler);
  }

  /** Listens on `host:port` (port 0: any free one); resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      this.#http2.once("error", failed);
      this.#http2.listen({ host, port }, () => {
        this.#http2.off("error", failed);
        resolve((this.#http2.address() as AddressInfo).port);
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
        for (const session of this.#connections.keys()) session.destroy();
      }, timeoutMs);
      force.unref();
      this.#http2.close(() => {
        clearTimeout(force);
        resolve();
      });
      for (const session of this.#connections.keys()) session.close();
    });
  }

  /** The record of a connection, made when it opens (streams come after their session). */
  #connectionOf(session: Http2Session): Connection {
    const known = this.#connections.get(session);
    if (known !== undefined) return known;
    const made = { pings: new PingStrikes(this.#pingLimits), openCalls: 0, lastStreamId: 0 };
    this.#connections.set(session, made);
    session.once("close", () => this.#connections.delete(session));
    session.on("error", (err) => this.#logger.debug("HTTP/2 connection error", { error: err }));
    session.on("ping", () => {
      if (!made.pings.ping(made.openCalls)) return;
      this.#logger.debug("client pinged too often; closing its connection");
      session.goaway(
        constants.NGHTTP2_ENHANCE_YOUR_CALM,
        made.lastStreamId,
        Buffer.from("too_many_pings"),
      );
      session.destroy();
    });
    return made;
  }

  #route(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on("error", (err) => this.#logger.debug("HTTP/2 stream error", { error: err }));
    const connection = this.#connectionOf(stream.session as Http2Session);
    connection.lastStreamId = Math.max(connection.lastStreamId, stream.id ?? 0);
    connection.openCalls++;
    stream.once("close", () => connection.openCalls--);
    const contentType = headers["content-type"];
    if (typeof contentType !== "string" || !contentType.startsWith("application/grpc")) {
      connection.pings.sent();
      stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    const path = headers[":path"] ?? "";
    const timeout = parseGrpcTimeout(headers["grpc-timeout"] as string | undefined);
    const encoding = headers["grpc-encoding"];
    const call = new ServerCall(
      stream,
      typeof encoding === "string" && encoding !== "identity" ? encoding : "",
      timeout === "malformed" ? undefined : timeout,
      () => connection.pings.sent(),
    );
    const handler = this.#handlers.get(path);
    if (handler === undefined) {
      call.end(Status.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    } else if (timeout === "malformed") {
      call.end(Status.INTERNAL, `malformed grpc-timeout: ${headers["grpc-timeout"]}`);
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
