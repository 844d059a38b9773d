/**
 * The limit baseline: a bare @grpc/grpc-js server with the same Destination service definition
 * that holds every Get stream and, on request, writes one pre-encoded Update to all of them in
 * a plain loop. No cluster, no watchers, no queues: what the transport alone costs.
 */
import { DestinationService, type GetCall, type Update } from "@destination/proto";
import * as grpc from "@grpc/grpc-js";
import { startProfile, stopProfile } from "./profiler.js";
import type { WorkerReply, WorkerRequest } from "./protocol.js";
import { nowMs } from "./stats.js";
import { serveRequests } from "./worker-host.js";

const calls = new Set<GetCall>();
let message: Buffer = Buffer.alloc(0);
let server: grpc.Server | undefined;
let writes = 0;

function onGet(call: GetCall): void {
  calls.add(call);
  const drop = () => calls.delete(call);
  call.on("cancelled", drop);
  call.on("error", drop);
  call.on("close", drop);
  // The initial snapshot, as the destination server sends one.
  call.write(message);
  writes++;
}

function notImplemented(call: grpc.ServerWritableStream<unknown, unknown>): void {
  call.emit("error", { code: grpc.status.UNIMPLEMENTED, details: "baseline" });
}

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  switch (req.type) {
    case "setMessage":
      message = Buffer.from(req.base64, "base64");
      return { type: "ok" };
    case "start": {
      const s = new grpc.Server();
      s.addService(DestinationService, {
        get: onGet as grpc.handleServerStreamingCall<unknown, Update | Uint8Array>,
        getProfile: notImplemented,
      });
      const port = await new Promise<number>((resolve, reject) =>
        s.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
          err ? reject(err) : resolve(p),
        ),
      );
      server = s;
      const stamp = nowMs();
      return {
        type: "started",
        grpcPort: port,
        adminPort: 0,
        startStampMs: stamp,
        readyStampMs: stamp,
        generateMs: 0,
        objects: 0,
      };
    }
    case "broadcast": {
      const stampMs = nowMs();
      for (const call of calls) {
        call.write(message);
        writes++;
      }
      return { type: "broadcasted", stampMs, doneMs: nowMs(), streams: calls.size };
    }
    case "resetCounters":
      writes = 0;
      return { type: "ok" };
    case "stats": {
      const mem = process.memoryUsage();
      const cpu = process.cpuUsage();
      return {
        type: "stats",
        stats: {
          heapUsedBytes: mem.heapUsed,
          rssBytes: mem.rss,
          cpuUserUs: cpu.user,
          cpuSystemUs: cpu.system,
          encodes: { writes, distinctBuffers: 1 },
        },
      };
    }
    case "cpu": {
      const { user, system } = process.cpuUsage();
      return { type: "cpu", cpuUs: user + system };
    }
    case "profileStart":
      await startProfile();
      return { type: "ok" };
    case "profileStop":
      await stopProfile(req.path);
      return { type: "ok" };
    case "exit":
      for (const call of calls) call.end();
      server?.forceShutdown();
      setTimeout(() => process.exit(0), 50);
      return { type: "ok" };
    default:
      throw new Error(`unsupported request ${req.type}`);
  }
}

serveRequests(handle);
