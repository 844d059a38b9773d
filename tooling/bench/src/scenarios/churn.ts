/**
 * Churn: rolling pod replacement at a fixed event rate (pod add, slice update, pod delete)
 * over the services of 1k Get subscriptions; every third replacement writes the slice before
 * the pod it names. The samples are event-to-wire latencies: from the event that completes an
 * endpoint (the slice update, or the pod's arrival when the slice came first) being applied in
 * the server process to each subscribed client receiving the add that names the new pod. At
 * the end, every stream's endpoints are checked against the cluster (the convergence check).
 */
import { fromBinary, UpdateSchema } from "@destination/proto";
import {
  checkConvergence,
  describeConvergence,
  EndpointView,
} from "@destination/test-support/server";
import type { BenchPlan } from "../args.js";
import { ClientPool, contextToken, StreamGroup, type StreamSpec } from "../clients.js";
import { authority } from "../fixtures.js";
import type { ScenarioResult } from "../report.js";
import { summarize } from "../stats.js";
import { Worker } from "../worker.js";
import { nodeName, overflows, profiled, type ScenarioContext, sleep } from "./common.js";

const CHURN_POD = /^churn-(\d+)$/;

export async function churn(plan: BenchPlan, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const c = plan.churn;
  const worker = Worker.spawn("server-worker.js");
  try {
    const started = await worker.request(
      {
        type: "start",
        experiments: plan.experiments,
        dataset: { services: c.datasetServices, podsPerService: c.podsPerService },
      },
      "started",
    );
    const pool = new ClientPool(started.grpcPort, plan.connections);
    await pool.ready();
    const specs: StreamSpec[] = Array.from({ length: c.subscriptions }, (_, i) => ({
      path: authority(i % c.services),
      nodeName: nodeName(i),
    }));
    const seqs: number[] = [];
    const times: number[] = [];
    const views = specs.map(() => new EndpointView());
    let decodeErrors = 0;
    const group = new StreamGroup(pool, specs, (i, bytes, at) => {
      try {
        const message = fromBinary(UpdateSchema, bytes);
        views[i]?.apply(message);
        const update = message.update;
        if (update.case !== "add") return;
        for (const addr of update.value.addrs) {
          const m = CHURN_POD.exec(addr.metricLabels.pod ?? "");
          if (m !== null) {
            seqs.push(Number(m[1]));
            times.push(at);
          }
        }
      } catch {
        decodeErrors++;
      }
    });
    await group.waitFor(1, 60_000);
    const overflowBefore = await overflows(started.adminPort);
    const services = Array.from({ length: c.services }, (_, s) => s);
    const { result } = await profiled(worker, ctx, "churn", () =>
      worker.request(
        {
          type: "churn",
          churn: { seconds: c.seconds, eventsPerSecond: c.eventsPerSecond, services },
        },
        "churned",
        (c.seconds + 60) * 1000,
      ),
    );
    // Let the last updates land.
    await sleep(1000);
    const overflowed = (await overflows(started.adminPort)) - overflowBefore;
    const stampOf = new Map(result.stamps);
    const late = new Set(result.late);
    const latencies: number[] = [];
    const lateLatencies: number[] = [];
    for (let k = 0; k < seqs.length; k++) {
      const seq = seqs[k] as number;
      const stamp = stampOf.get(seq);
      if (stamp === undefined) continue;
      const latency = (times[k] as number) - stamp;
      latencies.push(latency);
      if (late.has(seq)) lateLatencies.push(latency);
    }
    const { objects } = await worker.request({ type: "objects" }, "objects");
    const convergence = await checkConvergence(
      specs.map((spec, i) => ({
        path: spec.path,
        contextToken: contextToken(spec.nodeName),
        view: views[i] as EndpointView,
      })),
      objects,
    );
    const lateStats = summarize(lateLatencies);
    const perService = c.subscriptions / c.services;
    const expected = result.stamps.length * perService;
    const s = summarize(latencies);
    const cpuMs = (result.cpuUserUs + result.cpuSystemUs) / 1000;
    const cpuPercent = (cpuMs / result.wallMs) * 100;
    ctx.log(
      `churn: ${result.events} events in ${(result.wallMs / 1000).toFixed(1)} s, p99 ${s.p99.toFixed(1)} ms, ` +
        `cpu ${cpuPercent.toFixed(1)} %, overflows ${overflowed}, delivered ${latencies.length}/${expected}, ` +
        `late adds ${lateLatencies.length} (p99 ${lateStats.p99.toFixed(1)} ms); end state: ${describeConvergence(convergence)}`,
    );
    group.cancel();
    pool.close();
    return [
      {
        name: "churn",
        params: {
          events_per_s: c.eventsPerSecond,
          seconds: c.seconds,
          subscriptions: c.subscriptions,
          services: c.services,
          dataset_pods: c.datasetServices * c.podsPerService,
        },
        samples: s.count,
        median_ms: s.median,
        p99_ms: s.p99,
        missing_at_end: convergence.missing.length,
        late_adds: lateLatencies.length,
        late_add_p99_ms: lateStats.p99,
        extra: {
          max_ms: s.max,
          events: result.events,
          achieved_events_per_s: result.events / (result.wallMs / 1000),
          server_cpu_percent: cpuPercent,
          overflows: overflowed,
          delivered: latencies.length,
          expected,
          extra_at_end: convergence.extra.length,
          stale_at_end: convergence.stale.length,
          late_adds_expected: result.late.length * perService,
          ended_streams: group.ended,
          decode_errors: decodeErrors,
          loop_delay_p99_ms: result.loopDelayP99Ms,
          loop_delay_max_ms: result.loopDelayMaxMs,
        },
      },
    ];
  } finally {
    await worker.close();
  }
}
