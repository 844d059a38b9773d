/**
 * A bench child: the destination server alone in its process (started with --expose-gc), fed
 * by an in-memory cluster that delivers a synthetic initial list on start, then driven by the
 * parent over IPC (changes, churn, stats). Every Get write is counted at the service's response
 * serializer to check that each distinct Update is encoded once and shared across streams.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import { MemoryCluster } from "@destination/k8s-discovery";
import { DestinationService } from "@destination/proto";
import {
  createServerLogger,
  type RunningDestinationServer,
  startDestinationServer,
} from "@destination/server";
import { clusterObjects } from "@destination/test-support/server";
import { applyExperiments } from "./experiments.js";
import {
  type Dataset,
  dataset,
  LIST_ORDER,
  listOf,
  namespaceOf,
  pod,
  podIp,
  type SliceEndpointRef,
  slice,
} from "./fixtures.js";
import { startProfile, stopProfile } from "./profiler.js";
import type {
  ChurnResult,
  ChurnSpec,
  EncodeCounters,
  WorkerReply,
  WorkerRequest,
} from "./protocol.js";
import { nowMs } from "./stats.js";
import { serveRequests } from "./worker-host.js";

// --- encode accounting, installed before the server serves a call -----------------------------

// The server writes each message to a call as the bytes it encoded once, shared by every call
// that sends it, and the service definition's serializer hands them to grpc-js as they are:
// counting the buffers serialized, and how many of them are distinct, tells writes from
// encodes. Counted at the serializers grpc-js calls for each write, below the server's own code.
const counters = { writes: 0, distinctBuffers: 0 };
let seen = new WeakSet<object>();
for (const method of [DestinationService.get, DestinationService.getProfile]) {
  const serialize = method.responseSerialize as (value: unknown) => Buffer;
  Object.defineProperty(method, "responseSerialize", {
    value: (value: unknown): Buffer => {
      counters.writes++;
      if (typeof value === "object" && value !== null && !seen.has(value)) {
        seen.add(value);
        counters.distinctBuffers++;
      }
      return serialize(value);
    },
  });
}

function encodeCounters(): EncodeCounters {
  return { ...counters };
}

// --- the cluster ------------------------------------------------------------------------------

/** A MemoryCluster whose start() delivers an initial list, as an informer's first list does. */
class ListingCluster extends MemoryCluster {
  #initial: Dataset["byKind"] | undefined;

  constructor(initial: Dataset["byKind"]) {
    super({ name: "local" });
    this.#initial = initial;
  }

  override async start(): Promise<void> {
    const initial = this.#initial;
    this.#initial = undefined;
    if (initial !== undefined) {
      for (const kind of LIST_ORDER) this.replace(kind, listOf(initial, kind));
    }
    await super.start();
  }
}

let cluster: ListingCluster | undefined;
let server: RunningDestinationServer | undefined;
/** Current endpoints of every service's slice. */
let endpoints: SliceEndpointRef[][] = [];
let nextIp = 0;
let nextPod = 0;

function requireCluster(): ListingCluster {
  if (cluster === undefined) throw new Error("not started");
  return cluster;
}

function newEndpoint(serviceIndex: number, prefix: string): SliceEndpointRef {
  const n = nextPod++;
  const ref = { pod: `${prefix}-${n}`, ip: podIp(nextIp++), node: n };
  requireCluster().apply(pod(serviceIndex, ref.pod, ref.ip, ref.node));
  return ref;
}

function endpointsOf(serviceIndex: number): SliceEndpointRef[] {
  const refs = endpoints[serviceIndex];
  if (refs === undefined) throw new Error(`no service ${serviceIndex}`);
  return refs;
}

/**
 * Adds one new pod endpoint to a service's slice. Stamped right before the slice is applied and
 * when the apply returns: watchers, translators and stream queues run synchronously inside it,
 * so the second stamp is when every stream's write has been handed to HTTP/2.
 */
function addEndpoint(serviceIndex: number): { stampMs: number; doneMs: number } {
  const refs = endpointsOf(serviceIndex);
  refs.push(newEndpoint(serviceIndex, "fan"));
  const next = slice(serviceIndex, refs);
  const stampMs = nowMs();
  requireCluster().apply(next);
  return { stampMs, doneMs: nowMs() };
}

/**
 * Rolling replacement at a fixed event rate: each step is three events, a new pod, the slice
 * swapping the service's oldest endpoint for it (stamped: the client matches the pod name
 * `churn-<seq>`), and the old pod's deletion. Bounded by count (rate × seconds) and time.
 */
async function churn(spec: ChurnSpec): Promise<ChurnResult> {
  const c = requireCluster();
  const total = Math.round(spec.seconds * spec.eventsPerSecond);
  const stamps: [number, number][] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let events = 0;
  let step = 0;
  const late: number[] = [];
  let pending: { service: number; fresh: SliceEndpointRef; old?: SliceEndpointRef } | undefined;
  const applyPod = (p: NonNullable<typeof pending>) =>
    c.apply(pod(p.service, p.fresh.pod, p.fresh.ip, p.fresh.node));
  const applySlice = (p: NonNullable<typeof pending>) => {
    const refs = endpointsOf(p.service);
    p.old = refs.shift();
    refs.push(p.fresh);
    c.apply(slice(p.service, refs));
  };
  const applyOne = () => {
    const phase = events % 3;
    // Every third replacement names the new pod in the slice before the pod exists, as a
    // watch on slices can run ahead of the one on pods: its add is due when the pod arrives.
    const sliceFirst = step % 3 === 2;
    if (phase === 0) {
      const service = spec.services[step % spec.services.length] as number;
      pending = { service, fresh: { pod: `churn-${step}`, ip: podIp(nextIp++), node: step } };
      if (sliceFirst) applySlice(pending);
      else applyPod(pending);
    } else if (phase === 1 && pending !== undefined) {
      const stamp = nowMs();
      if (sliceFirst) {
        applyPod(pending);
        late.push(step);
      } else {
        applySlice(pending);
      }
      stamps.push([step, stamp]);
    } else if (pending !== undefined) {
      if (pending.old !== undefined) {
        c.delete("Pod", namespaceOf(pending.service), pending.old.pod);
      }
      pending = undefined;
      step++;
    }
    events++;
  };
  loop.enable();
  const cpu = process.cpuUsage();
  const t0 = nowMs();
  const deadline = t0 + spec.seconds * 1000 + 10_000;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = nowMs();
      const due = Math.min(total, Math.floor(((now - t0) * spec.eventsPerSecond) / 1000));
      while (events < due) applyOne();
      if (events >= total || now > deadline) {
        clearInterval(timer);
        resolve();
      }
    }, 4);
  });
  const wallMs = nowMs() - t0;
  const used = process.cpuUsage(cpu);
  loop.disable();
  return {
    stamps,
    late,
    events,
    wallMs,
    cpuUserUs: used.user,
    cpuSystemUs: used.system,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMaxMs: loop.max / 1e6,
  };
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error("run the server child with --expose-gc");
  collect();
  collect();
}

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  switch (req.type) {
    case "start": {
      applyExperiments(req.experiments ?? []);
      const g0 = nowMs();
      const data = dataset(req.dataset.services, req.dataset.podsPerService);
      endpoints = data.endpoints;
      nextIp = req.dataset.services * req.dataset.podsPerService;
      const generateMs = nowMs() - g0;
      cluster = new ListingCluster(data.byKind);
      const startStampMs = nowMs();
      server = await startDestinationServer({
        addr: "127.0.0.1:0",
        metricsAddr: "127.0.0.1:0",
        cluster,
        logger: createServerLogger({ level: "error" }),
        shutdownTimeoutMs: 2000,
        ...(req.streamQueueCapacity !== undefined
          ? { streamQueueCapacity: req.streamQueueCapacity }
          : {}),
      });
      return {
        type: "started",
        grpcPort: server.grpcPort,
        adminPort: server.adminPort,
        startStampMs,
        readyStampMs: nowMs(),
        generateMs,
        objects: data.objectCount,
      };
    }
    case "addEndpoint":
      return { type: "applied", ...addEndpoint(req.service) };
    case "churn":
      return { type: "churned", result: await churn(req.churn) };
    case "objects":
      return { type: "objects", objects: clusterObjects(requireCluster()) };
    case "resetCounters":
      counters.writes = counters.distinctBuffers = 0;
      seen = new WeakSet();
      return { type: "ok" };
    case "stats": {
      gc();
      const mem = process.memoryUsage();
      const cpu = process.cpuUsage();
      const heapSnapshot =
        req.heapSnapshot !== undefined ? writeHeapSnapshot(req.heapSnapshot) : undefined;
      return {
        type: "stats",
        stats: {
          heapUsedBytes: mem.heapUsed,
          rssBytes: mem.rss,
          cpuUserUs: cpu.user,
          cpuSystemUs: cpu.system,
          encodes: encodeCounters(),
          ...(heapSnapshot !== undefined ? { heapSnapshot } : {}),
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
      await server?.close();
      // Leave the event loop a turn to flush the reply, then exit (writes a --cpu-prof profile).
      setTimeout(() => process.exit(0), 50);
      return { type: "ok" };
    default:
      throw new Error(`unsupported request ${req.type}`);
  }
}

serveRequests(handle);
