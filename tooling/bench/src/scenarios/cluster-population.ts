/**
 * The real API server of the cluster-mode scenarios (`cluster`, `churn-mix`, `scale-curve`,
 * `audit`), and the dataset
 * written into it the way a cluster's controllers write it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeObject } from "@destination/core";
import { type KubeEnv, startKubeEnv } from "@destination/k8s-env";
import { type Dataset, NAMESPACES, namespaceOf } from "../fixtures.js";
import { inParallel, KubeWriter } from "../kube-writer.js";
import type { ServerKind } from "../server-process.js";
import type { ScenarioContext } from "./common.js";

/** Writes in flight while populating: enough to keep the API server busy, not swamped. */
export const WRITE_CONCURRENCY = 32;

/** A kube-apiserver with its watch cache on, as in a cluster, and room for the Services' IPs. */
export function startBenchApiServer(): Promise<KubeEnv> {
  return startKubeEnv({
    watchCache: true,
    apiServerArgs: ["--service-cluster-ip-range=10.96.0.0/12"],
  });
}

/** What a side-by-side scenario runs on: one API server, its writer, the servers to measure. */
export interface BenchCluster {
  readonly env: KubeEnv;
  readonly writer: KubeWriter;
  /** Ours, and upstream's when `DESTINATION_UPSTREAM_BIN` names its binary. */
  readonly kinds: readonly ServerKind[];
  readonly upstreamBin: string | undefined;
  /** Where the servers' logs go; removed by `close`. */
  readonly logDir: string;
  close(): Promise<void>;
}

/** Starts the API server of a side-by-side scenario and says which servers it will measure. */
export async function openBenchCluster(
  ctx: ScenarioContext,
  scenario: string,
): Promise<BenchCluster> {
  const upstreamBin = process.env.DESTINATION_UPSTREAM_BIN || undefined;
  if (upstreamBin === undefined)
    ctx.log(`${scenario}: DESTINATION_UPSTREAM_BIN is not set; ours only`);
  const logDir = mkdtempSync(join(tmpdir(), `bench-${scenario}-`));
  ctx.log(`${scenario}: starting kube-apiserver and etcd`);
  const env = await startBenchApiServer();
  const writer = new KubeWriter(env);
  return {
    env,
    writer,
    kinds: upstreamBin === undefined ? ["ours"] : ["ours", "upstream"],
    upstreamBin,
    logDir,
    async close() {
      writer.close();
      await env.stop();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Namespaces, Nodes, ReplicaSets, Services, then Pods before the slices that name them. */
export async function populate(
  writer: KubeWriter,
  data: Dataset,
  after: readonly KubeObject[] = [],
): Promise<void> {
  const namespaces: KubeObject[] = [
    "linkerd",
    ...Array.from({ length: NAMESPACES }, (_, i) => namespaceOf(i)),
  ].map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
  const { byKind } = data;
  for (const batch of [
    namespaces,
    byKind.Node,
    byKind.ReplicaSet,
    byKind.Service,
    byKind.Pod,
    byKind.EndpointSlice,
    after,
  ] as (readonly KubeObject[])[]) {
    await inParallel(batch, WRITE_CONCURRENCY, (obj) => writer.apply(obj));
  }
}

/**
 * Writes the Services `from` … `to`-1 of the dataset with their ReplicaSets, pods and slices
 * (and, the first time, the namespaces and nodes): a cluster grown from size to size.
 */
export async function populateServices(
  writer: KubeWriter,
  data: Dataset,
  from: number,
  to: number,
  podsPerService: number,
): Promise<void> {
  const { byKind } = data;
  const first: KubeObject[] =
    from === 0
      ? [
          ...["linkerd", ...Array.from({ length: NAMESPACES }, (_, i) => namespaceOf(i))].map(
            (name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
          ),
          ...byKind.Node,
        ]
      : [];
  for (const batch of [
    first,
    byKind.ReplicaSet.slice(from, to),
    byKind.Service.slice(from, to),
    byKind.Pod.slice(from * podsPerService, to * podsPerService),
    byKind.EndpointSlice.slice(from, to),
  ] as KubeObject[][]) {
    await inParallel(batch, WRITE_CONCURRENCY, (obj) => writer.apply(obj));
  }
}
