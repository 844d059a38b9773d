/**
 * The gRPC serving thread's entry (`dist/grpc-serving-thread.js`): grpc-js with health,
 * reflection and the request admission, as `prepareGrpcServer` builds it in one thread, but the
 * Destination calls it accepts are handed to the discovery thread, which answers with encoded
 * bytes. HTTP/2 and grpc-js, half of what a storm of new streams costs, run here on a core of
 * their own.
 */
import { parentPort, workerData } from "node:worker_threads";
import { DestinationService, type GetDestination } from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";
import { bindGrpcServer, buildGrpcServer, shutdownGrpcServer } from "./grpc-server.js";
import {
  type AcceptedCall,
  GET,
  GET_PROFILE,
  type MethodCode,
  type ServingThreadData,
  type ToDiscovery,
  type ToServing,
} from "./serving-thread-protocol.js";

type Call = grpc.ServerWritableStream<GetDestination, Uint8Array>;

const port = parentPort;
if (port === null) throw new Error("grpc-serving-thread runs as a worker thread only");
const { limits } = workerData as ServingThreadData;

const calls = new Map<number, Call>();
let nextId = 1;

/** What this task has to tell the discovery thread, sent once the task is over. */
let inbox: {
  calls: AcceptedCall[];
  cancelled: number[];
  paused: number[];
  drained: number[];
} = { calls: [], cancelled: [], paused: [], drained: [] };
let flushScheduled = false;

function post(message: ToDiscovery): void {
  port?.postMessage(message);
}

function later(): typeof inbox {
  if (!flushScheduled) {
    flushScheduled = true;
    queueMicrotask(() => {
      flushScheduled = false;
      const batch = inbox;
      inbox = { calls: [], cancelled: [], paused: [], drained: [] };
      post({ t: "in", ...batch });
    });
  }
  return inbox;
}

function accept(method: MethodCode) {
  return (call: Call): void => {
    const id = nextId++;
    calls.set(id, call);
    const { scheme, path, contextToken } = call.request;
    later().calls.push({ id, method, peer: call.getPeer(), scheme, path, contextToken });
    call.once("cancelled", () => {
      if (calls.delete(id)) later().cancelled.push(id);
    });
  };
}

const { server, health } = buildGrpcServer(limits, (reason) => post({ t: "refused", reason }));
server.addService(DestinationService, { get: accept(GET), getProfile: accept(GET_PROFILE) });

/** Calls backed up, waiting for `'drain'`. */
const paused = new Set<number>();

function write(id: number, bytes: Uint8Array): void {
  const call = calls.get(id);
  if (call === undefined || call.cancelled) return;
  if (!call.write(bytes) && !paused.has(id)) {
    paused.add(id);
    later().paused.push(id);
    call.once("drain", () => {
      if (paused.delete(id) && calls.has(id)) later().drained.push(id);
    });
  }
}

function end(id: number, code: number, details: string): void {
  const call = calls.get(id);
  if (call === undefined) return;
  calls.delete(id);
  paused.delete(id);
  // As in one thread: every end goes through 'error', grpc-js' way of setting the status.
  if (!call.cancelled) call.emit("error", { code, details } satisfies Partial<grpc.StatusObject>);
}

port.on("message", (message: ToServing) => {
  switch (message.t) {
    case "out": {
      const { writes, payloads } = message;
      for (let i = 0; i < writes.length; i += 2) {
        write(writes[i] as number, payloads[writes[i + 1] as number] as Uint8Array);
      }
      for (const [id, code, details] of message.ends) end(id, code, details);
      break;
    }
    case "bind":
      bindGrpcServer(server, message.host, message.port).then(
        (bound) => post({ t: "bound", port: bound }),
        (err: unknown) =>
          post({ t: "bindFailed", message: err instanceof Error ? err.message : String(err) }),
      );
      break;
    case "shutdown":
      shutdownGrpcServer(server, health, message.timeoutMs).then((forced) =>
        post({ t: "closed", forced }),
      );
      break;
  }
});
