/**
 * Fan-out: S Get streams of one service over many connections; one endpoint is added to the
 * service's slice; the sample is the time from that change to the last stream receiving it.
 * The limit baseline does the same with a bare grpc-js server writing one pre-encoded Update.
 *
 * Both servers run side by side and their measured rounds alternate (server, limit, server, …),
 * so that whatever else the machine does at the time weighs on both alike.
 */
import { fromBinary, toBinary, UpdateSchema } from "@destination/proto";
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority } from "../fixtures.js";
import type { EncodeCounters } from "../protocol.js";
import type { ScenarioResult } from "../report.js";
import { summarize } from "../stats.js";
import { Worker } from "../worker.js";
import { nodeName, type ScenarioContext, stats, waitForNoSubscribers } from "./common.js";

const ROUND_TIMEOUT_MS = 60_000;

class Samples {
  /** Change → last stream has it. */
  readonly completions: number[] = [];
  /** Change → first stream has it. */
  readonly firsts: number[] = [];
  /** Time the server process spent handing the change to every stream (synchronous part). */
  readonly loops: number[] = [];
}

function specs(n: number): StreamSpec[] {
  return Array.from({ length: n }, (_, i) => ({ path: authority(0), nodeName: nodeName(i) }));
}

/** One side of the comparison: a child, its streams, and how to make one change. */
interface Side {
  readonly worker: Worker;
  readonly pool: ClientPool;
  readonly group: StreamGroup;
  /** Messages each stream has received so far (the initial one included). */
  received: number;
  readonly change: () => Promise<{ stampMs: number; doneMs: number }>;
  /** The last message some stream received. */
  readonly last: () => Buffer | undefined;
}

async function openSide(
  worker: Worker,
  port: number,
  plan: BenchPlan,
  n: number,
  change: Side["change"],
): Promise<Side> {
  const pool = new ClientPool(port, plan.connections);
  await pool.ready();
  let last: Buffer | undefined;
  const group = new StreamGroup(pool, specs(n), (_i, bytes) => {
    last = bytes;
  });
  await group.waitFor(1, ROUND_TIMEOUT_MS);
  return { worker, pool, group, received: 1, change, last: () => last };
}

/** One change, measured from the child's stamp to the first and the last stream receiving it. */
async function round(side: Side, samples: Samples | undefined): Promise<void> {
  side.received++;
  const done = side.group.waitFor(side.received, ROUND_TIMEOUT_MS);
  const applied = await side.change();
  const { firstMs, lastMs } = await done;
  samples?.completions.push(lastMs - applied.stampMs);
  samples?.firsts.push(firstMs - applied.stampMs);
  samples?.loops.push(applied.doneMs - applied.stampMs);
}

async function closeSide(side: Side): Promise<void> {
  side.group.cancel();
  side.pool.close();
}

/** Encodes and writes since the last reset, for the server side. */
async function encodes(worker: Worker): Promise<EncodeCounters> {
  return (await stats(worker)).encodes;
}

export async function fanout(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const server = Worker.spawn("server-worker.js");
  const limit = Worker.spawn("baseline-worker.js");
  const results: ScenarioResult[] = [];
  try {
    const serverStarted = await server.request(
      {
        type: "start",
        dataset: { services: 1, podsPerService: 10 },
        experiments: plan.experiments,
      },
      "started",
    );
    const limitStarted = await limit.request(
      { type: "start", dataset: { services: 0, podsPerService: 0 } },
      "started",
    );
    const serverChange = async () => server.request({ type: "addEndpoint", service: 0 }, "applied");
    const { warmup, rounds } = plan.fanout;

    for (const n of plan.fanout.streams) {
      // The server: subscribe (counting the encodes of the initial snapshots), warm up.
      await server.request({ type: "resetCounters" }, "ok");
      const real = await openSide(server, serverStarted.grpcPort, plan, n, serverChange);
      const initial = await encodes(server);
      for (let r = 0; r < warmup; r++) await round(real, undefined);

      // The limit writes the bytes of an update the server really sent.
      const sample = real.last();
      if (sample === undefined) throw new Error("fan-out received no update");
      const message = Buffer.from(toBinary(UpdateSchema, fromBinary(UpdateSchema, sample)));
      await limit.request({ type: "setMessage", base64: message.toString("base64") }, "ok");
      const limitChange = async () => {
        const sent = await limit.request({ type: "broadcast" }, "broadcasted");
        if (sent.streams !== n)
          throw new Error(`the limit holds ${sent.streams} streams, not ${n}`);
        return sent;
      };
      const bare = await openSide(limit, limitStarted.grpcPort, plan, n, limitChange);
      for (let r = 0; r < warmup; r++) await round(bare, undefined);

      // Measured rounds, alternating.
      const realSamples = new Samples();
      const bareSamples = new Samples();
      await server.request({ type: "resetCounters" }, "ok");
      const profiling = ctx.cpuProfDir !== undefined;
      if (profiling) {
        await server.request({ type: "profileStart" }, "ok");
        await limit.request({ type: "profileStart" }, "ok");
      }
      for (let r = 0; r < rounds; r++) {
        await round(real, realSamples);
        await round(bare, bareSamples);
      }
      if (profiling) {
        for (const [w, name] of [
          [server, `fanout-rounds-${n}`],
          [limit, `limit-rounds-${n}`],
        ] as const) {
          const path = `${ctx.cpuProfDir}/${name}.cpuprofile`;
          await w.request({ type: "profileStop", path }, "ok");
          ctx.log(`cpu profile: ${path}`);
        }
      }
      const counted = await encodes(server);

      const s = summarize(realSamples.completions);
      const b = summarize(bareSamples.completions);
      ctx.log(
        `fanout S=${n}: median ${s.median.toFixed(1)} ms (limit ${b.median.toFixed(1)} ms), ` +
          `${counted.distinctBuffers / rounds} encodes/change, ${initial.distinctBuffers} initial encodes`,
      );
      const params = { streams: n, connections: plan.connections, service_endpoints: 10 };
      results.push({
        name: "fanout",
        params,
        samples: s.count,
        median_ms: s.median,
        p99_ms: s.p99,
        ratio_to_limit: s.p99 / b.p99,
        median_ratio_to_limit: s.median / b.median,
        extra: {
          first_stream_median_ms: summarize(realSamples.firsts).median,
          server_loop_median_ms: summarize(realSamples.loops).median,
          writes_per_change: counted.writes / rounds,
          // Each change should be encoded once per filter group (one per node name here),
          // not once per stream.
          encodes_per_change: counted.distinctBuffers / rounds,
          initial_writes: initial.writes,
          initial_encodes: initial.distinctBuffers,
          ended_streams: real.group.ended,
        },
      });
      results.push({
        name: "fanout-limit",
        params,
        samples: b.count,
        median_ms: b.median,
        p99_ms: b.p99,
        extra: {
          first_stream_median_ms: summarize(bareSamples.firsts).median,
          server_loop_median_ms: summarize(bareSamples.loops).median,
          message_bytes: message.length,
        },
      });
      await closeSide(real);
      await closeSide(bare);
      await waitForNoSubscribers(serverStarted.adminPort);
    }
  } finally {
    await Promise.all([server.close(), limit.close()]);
  }
  return results;
}
