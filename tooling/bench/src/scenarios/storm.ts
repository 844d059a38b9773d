/**
 * Subscribe storm (a control-plane restart): S new Get streams at once, spread over 1k
 * services, on fresh connections. The sample is the time from issuing the first call to the
 * last stream receiving its first message.
 */
import type { BenchPlan } from "../args.js";
import { ClientPool, StreamGroup, type StreamSpec } from "../clients.js";
import { authority } from "../fixtures.js";
import type { ScenarioResult } from "../report.js";
import { nowMs, summarize } from "../stats.js";
import { Worker } from "../worker.js";
import { nodeName, profiled, type ScenarioContext, stats, waitForNoSubscribers } from "./common.js";

async function storm(port: number, plan: BenchPlan, n: number) {
  const specs: StreamSpec[] = Array.from({ length: n }, (_, i) => ({
    path: authority(i % plan.storm.services),
    nodeName: nodeName(i),
  }));
  const t0 = nowMs();
  const pool = new ClientPool(port, plan.connections);
  const group = new StreamGroup(pool, specs);
  // The client side's own share: creating every call, before any can be answered.
  const issueMs = nowMs() - t0;
  const { firstMs, lastMs } = await group.waitFor(1, 120_000);
  group.cancel();
  pool.close();
  return { allMs: lastMs - t0, firstMs: firstMs - t0, issueMs };
}

export async function subscribeStorm(
  plan: BenchPlan,
  ctx: ScenarioContext,
): Promise<ScenarioResult[]> {
  const worker = Worker.spawn("server-worker.js");
  const results: ScenarioResult[] = [];
  try {
    const started = await worker.request(
      {
        type: "start",
        experiments: plan.experiments,
        dataset: { services: plan.storm.services, podsPerService: plan.storm.podsPerService },
      },
      "started",
    );
    // One unmeasured storm warms the JIT the way a long-lived process would be.
    await storm(started.grpcPort, plan, Math.min(...plan.storm.streams));
    await waitForNoSubscribers(started.adminPort);
    for (const n of plan.storm.streams) {
      const samples: number[] = [];
      const firsts: number[] = [];
      const issues: number[] = [];
      const serverCpu: number[] = [];
      const clientCpu: number[] = [];
      let encodes = 0;
      for (let r = 0; r < plan.storm.runs; r++) {
        await worker.request({ type: "resetCounters" }, "ok");
        const server0 = (await worker.request({ type: "cpu" }, "cpu")).cpuUs;
        const client0 = process.cpuUsage();
        const run = await (r === 0
          ? profiled(worker, ctx, `storm-${n}`, () => storm(started.grpcPort, plan, n))
          : storm(started.grpcPort, plan, n));
        const client = process.cpuUsage(client0);
        clientCpu.push((client.user + client.system) / 1000);
        serverCpu.push(((await worker.request({ type: "cpu" }, "cpu")).cpuUs - server0) / 1000);
        const counted = (await stats(worker)).encodes;
        encodes = counted.distinctBuffers;
        samples.push(run.allMs);
        firsts.push(run.firstMs);
        issues.push(run.issueMs);
        ctx.log(`storm S=${n} run ${r + 1}: ${run.allMs.toFixed(0)} ms, ${encodes} encodes`);
        await waitForNoSubscribers(started.adminPort);
      }
      const s = summarize(samples);
      results.push({
        name: "storm",
        params: { streams: n, services: plan.storm.services, connections: plan.connections },
        samples: s.count,
        median_ms: s.median,
        p99_ms: s.p99,
        extra: {
          first_stream_median_ms: summarize(firsts).median,
          client_issue_median_ms: summarize(issues).median,
          // Which side is the bottleneck: CPU time of each process during a storm.
          server_cpu_median_ms: summarize(serverCpu).median,
          client_cpu_median_ms: summarize(clientCpu).median,
          streams_per_s: n / (s.median / 1000),
          initial_encodes: encodes,
        },
      });
    }
  } finally {
    await worker.close();
  }
  return results;
}
