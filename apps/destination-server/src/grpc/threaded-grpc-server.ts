import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { MetricsRegistry } from "@destination/core";
import { joinHostPort } from "@destination/go-compat";
import type { DestinationServer } from "@destination/proto";
import type { ServerLogger } from "../logging/server-logger.js";
import {
  type GrpcLimits,
  grpcLimitsOf,
  type PreparedGrpcServer,
  refusedCounter,
} from "./grpc-server.js";
import { Outbox, RemoteCall } from "./remote-call.js";
import {
  GET,
  type ServingThreadData,
  type ToDiscovery,
  type ToServing,
} from "./serving-thread-protocol.js";

/** The serving thread's entry, built beside this module's bundle (tsup, `grpc-serving-thread`). */
function servingThreadEntry(): URL {
  const beside = new URL("./grpc-serving-thread.js", import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  // Run from the sources (tests): the entry is the package's built one.
  const built = new URL("../../dist/grpc-serving-thread.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new Error(
    "-grpc-serving-thread needs the built package (dist/grpc-serving-thread.js); run the build",
  );
}

/** What the serving thread answers to `bind`. */
type BindResult = Extract<ToDiscovery, { t: "bound" | "bindFailed" }>;

/**
 * `prepareGrpcServer`'s counterpart with HTTP/2 and grpc-js on a thread of their own
 * (`-grpc-serving-thread`): the thread starts now, while the caches sync; `start` binds it and
 * hands every Destination call it accepts to `destination` here, as a `RemoteCall`.
 */
export function prepareThreadedGrpcServer(
  limits: GrpcLimits,
  logger: ServerLogger,
  metrics: MetricsRegistry,
): PreparedGrpcServer {
  const refused = refusedCounter(metrics);
  const worker = new Worker(servingThreadEntry(), {
    workerData: { limits: grpcLimitsOf(limits) } satisfies ServingThreadData,
  });
  const post = (message: ToServing) => worker.postMessage(message);
  const outbox = new Outbox(post);
  const calls = new Map<number, RemoteCall>();
  let destination: DestinationServer | undefined;
  let onBound: ((result: BindResult) => void) | undefined;
  let onClosed: ((forced: boolean) => void) | undefined;
  let exited = false;
  /** Set before we end the thread ourselves, whose exit is then no failure. */
  let terminating = false;
  const terminate = async () => {
    terminating = true;
    await worker.terminate();
  };

  worker.on("message", (message: ToDiscovery) => {
    switch (message.t) {
      case "in":
        for (const accepted of message.calls) {
          const call = new RemoteCall(accepted, outbox);
          calls.set(call.id, call);
          call.once("cancelled", () => calls.delete(call.id));
          // Our own end: the serving thread forgets the call when it has sent its status.
          call.once("error", () => calls.delete(call.id));
          const handle = accepted.method === GET ? destination?.get : destination?.getProfile;
          handle?.(call.asServerCall());
        }
        for (const id of message.paused) calls.get(id)?.pause();
        for (const id of message.drained) calls.get(id)?.drain();
        for (const id of message.cancelled) calls.get(id)?.cancel();
        break;
      case "refused":
        refused(message.reason);
        break;
      case "bound":
      case "bindFailed":
        onBound?.(message);
        break;
      case "closed":
        onClosed?.(message.forced);
        break;
    }
  });
  worker.on("error", (err) => {
    logger.error("gRPC serving thread failed", { error: err });
  });
  worker.on("exit", (code) => {
    exited = true;
    onClosed?.(false);
    if (terminating) return;
    logger.error("gRPC serving thread exited", { code });
    // Nothing serves the proxies any more: fail as a crash of this thread would, so that the
    // process is restarted rather than left ready and deaf.
    setImmediate(() => {
      throw new Error(`the gRPC serving thread exited (code ${code})`);
    });
  });
  // The thread must never keep a finished process alive.
  worker.unref();

  return {
    async start(handlers, listen) {
      destination = handlers;
      const result = await new Promise<BindResult>((resolve) => {
        onBound = resolve;
        post({ t: "bind", host: listen.host, port: listen.port });
      });
      if (result.t === "bindFailed") {
        await terminate();
        throw new Error(`gRPC server: ${result.message}`);
      }
      const { port } = result;
      logger.info("gRPC server listening", {
        addr: joinHostPort(listen.host, port),
        thread: "serving",
      });
      return {
        port,
        async shutdown(timeoutMs) {
          if (exited) return;
          // The streams' last writes and ends go before the shutdown.
          outbox.flush();
          const forced = await new Promise<boolean>((resolve) => {
            onClosed = resolve;
            post({ t: "shutdown", timeoutMs });
          });
          if (forced) logger.warn("graceful shutdown timed out; closing connections");
          for (const call of calls.values()) call.cancel();
          await terminate();
        },
      };
    },
    discard: terminate,
  };
}
