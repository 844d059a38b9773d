// Convergence under churn on a real kube-apiserver: a rolling replacement of 1,000 pods across 50
// subscribed Services, where a share of the EndpointSlice updates name their new pod before it
// exists and half of the new ReplicaSets are created after their first pods. At the end every
// Get stream must hold exactly what a fresh list from the API server implies: 0 missing, 0 extra,
// 0 stale endpoints, by the convergence check of @destination/server/testing.

import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import {
  type ConvergenceReport,
  checkConvergence,
  describeConvergence,
  EndpointView,
  get,
  type ObservedStream,
  type StreamRecorder,
} from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { type ServerUnderTest, startServer } from "../src/server.js";

const NS = "churn";
const SERVICES = 50;
const PODS_PER_SERVICE = 20;
/** Two slices per Service, as the EndpointSlice controller splits endpoints. */
const SLICES_PER_SERVICE = 2;
/** Every third replacement writes the slice before the pod it names. */
const SLICE_FIRST_EVERY = 3;
const CONVERGE_WITHIN_MS = 60_000;
const KINDS = ["Service", "EndpointSlice", "Pod", "ReplicaSet", "Job", "Node", "Server"];

const serviceName = (s: number) => `svc-${s}`;
const rsName = (s: number, generation: number) => `svc-${s}-gen${generation}`;
const podName = (s: number, generation: number, i: number) =>
  `${rsName(s, generation)}-p${String(i).padStart(2, "0")}`;
const podIp = (s: number, generation: number, i: number) => `10.${200 + generation}.${s}.${i + 1}`;

function churnPod(s: number, generation: number, i: number) {
  return pod(podName(s, generation, i), {
    ...CLUSTER_POD,
    namespace: NS,
    ip: podIp(s, generation, i),
    labels: {
      "pod-template-hash": String(rsName(s, generation).split("-").pop()),
      app: serviceName(s),
    },
    replicaSet: rsName(s, generation),
    serviceAccountName: serviceName(s),
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });
}

/** The slices of one Service for the pods each endpoint slot holds now. */
function slicesOf(s: number, slots: readonly { generation: number }[]) {
  const perSlice = PODS_PER_SERVICE / SLICES_PER_SERVICE;
  return Array.from({ length: SLICES_PER_SERVICE }, (_, k) =>
    slice(
      `${serviceName(s)}-${k}`,
      serviceName(s),
      slots.slice(k * perSlice, (k + 1) * perSlice).map(({ generation }, j) => {
        const i = k * perSlice + j;
        return podEndpoint(podName(s, generation, i), podIp(s, generation, i), { namespace: NS });
      }),
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
  );
}

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

let ctx: IntegrationEnv | undefined;
let dst: ServerUnderTest | undefined;
const recorders: StreamRecorder<never>[] = [];

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  const services = Array.from({ length: SERVICES }, (_, s) => s);
  await ctx.api.apply(...clusterBasics());
  await inParallel(services, 10, async (s) => {
    const api = ctx?.api;
    if (!api) return;
    await api.apply(
      service(serviceName(s), {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      }),
      replicaSet(rsName(s, 0), serviceName(s), { namespace: NS }),
      ...Array.from({ length: PODS_PER_SERVICE }, (_, i) => churnPod(s, 0, i)),
      ...slicesOf(
        s,
        Array.from({ length: PODS_PER_SERVICE }, () => ({ generation: 0 })),
      ),
    );
  });
  dst = await startServer(ctx.env.kubeconfigPath);
}, 600_000);

afterAll(async () => {
  for (const r of recorders) r.cancel();
  await dst?.close();
  await ctx?.stop();
});

/** A fresh list of every kind the server reads, each object with its kind. */
async function freshList(): Promise<KubeObject[]> {
  const api = ctx?.api;
  if (!api) throw new Error("setup failed");
  const lists = await Promise.all(
    KINDS.map(async (kind) => (await api.list(kind)).map((o) => ({ ...o, kind }))),
  );
  return lists.flat();
}

describe("convergence under churn", () => {
  it("a rolling replacement of 1,000 pods, slices first for a share, ends with every stream holding exactly the cluster's endpoints", async () => {
    if (!ctx || !dst) throw new Error("setup failed");
    const { api } = ctx;
    const paths = Array.from(
      { length: SERVICES },
      (_, s) => `${serviceName(s)}.${NS}.svc.cluster.local:80`,
    );
    for (const path of paths) recorders.push(get(dst.client, path) as StreamRecorder<never>);
    // Every stream has its initial state before the churn starts.
    await Promise.all(recorders.map((r) => r.next(60_000)));

    let sliceFirst = 0;
    let replaced = 0;
    const services = Array.from({ length: SERVICES }, (_, s) => s);
    await inParallel(services, 25, async (s) => {
      const slots = Array.from({ length: PODS_PER_SERVICE }, () => ({ generation: 0 }));
      // Half of the Services get their new ReplicaSet before its pods, half after the first one.
      const ownerLate = s % 2 === 1;
      if (!ownerLate) await api.apply(replicaSet(rsName(s, 1), serviceName(s), { namespace: NS }));
      for (let i = 0; i < PODS_PER_SERVICE; i++) {
        const next = churnPod(s, 1, i);
        slots[i] = { generation: 1 };
        const sliceOfSlot = slicesOf(s, slots)[
          Math.floor(i / (PODS_PER_SERVICE / SLICES_PER_SERVICE))
        ];
        if (!sliceOfSlot) throw new Error("no slice");
        if ((s * PODS_PER_SERVICE + i) % SLICE_FIRST_EVERY === 0) {
          // The slice names the new pod before the pod exists.
          await api.apply(sliceOfSlot);
          await api.apply(next);
          sliceFirst++;
        } else {
          await api.apply(next);
          await api.apply(sliceOfSlot);
        }
        if (ownerLate && i === 0)
          await api.apply(replicaSet(rsName(s, 1), serviceName(s), { namespace: NS }));
        await api.delete("Pod", NS, podName(s, 0, i));
        replaced++;
      }
      await api.delete("ReplicaSet", NS, rsName(s, 0));
    });
    expect(replaced).toBe(SERVICES * PODS_PER_SERVICE);
    expect(sliceFirst).toBeGreaterThanOrEqual(300);

    const objects = await freshList();
    const observe = (): ObservedStream[] =>
      paths.map((path, k) => {
        const view = new EndpointView();
        for (const message of (recorders[k] as StreamRecorder<never>).received) view.apply(message);
        return { path, view };
      });
    // The server's caches trail the API server by the watch latency: poll the check until it
    // holds or the bound passes, and report the last result either way.
    const deadline = Date.now() + CONVERGE_WITHIN_MS;
    let report: ConvergenceReport;
    for (;;) {
      report = await checkConvergence(observe(), objects);
      const clean = report.missing.length + report.extra.length + report.stale.length === 0;
      if (clean || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(describeConvergence(report)).toBe(`${SERVICES} streams: 0 missing, 0 extra, 0 stale`);
    // And the end state is the new generation, everywhere.
    const held = observe().flatMap(({ view }) => view.addresses());
    expect(held).toHaveLength(SERVICES * PODS_PER_SERVICE);
    expect(held.every((address) => address.startsWith("10.201."))).toBe(true);
    for (const r of recorders) expect(r.ended).toBeUndefined();
  }, 600_000);
});
