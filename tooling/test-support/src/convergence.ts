// The convergence check: does every open Get stream hold exactly what the cluster state implies?
// The reference is computed from scratch by a second server on an in-memory copy of that state,
// where every object is cached before anything asks for it, so event order cannot matter there.

import type { KubeObject } from "@destination/core";
import {
  type Cluster,
  MemoryCluster,
  RESOURCE_KINDS,
  type ResourceKind,
} from "@destination/k8s-discovery";
import { type AnnouncedEndpoint, compareEndpointViews, EndpointView } from "@destination/proto";
import {
  createServerLogger,
  type DestinationServerOptions,
  type RunningDestinationServer,
  startDestinationServer,
} from "@destination/server";
import { connect, get } from "./streams.js";

/** One stream of the server under test: what it asked for and what it holds now. */
export interface ObservedStream {
  readonly path: string;
  readonly contextToken?: string;
  readonly view: EndpointView;
}

/** One endpoint on which a stream and the cluster state disagree. */
export interface ConvergenceDifference {
  readonly path: string;
  readonly address: string;
  /** What the cluster state implies (absent for an extra endpoint). */
  readonly expected?: AnnouncedEndpoint;
  /** What the stream holds (absent for a missing endpoint). */
  readonly actual?: AnnouncedEndpoint;
}

export interface ConvergenceReport {
  readonly streams: number;
  /** Endpoints the cluster state implies that a stream does not hold. */
  readonly missing: readonly ConvergenceDifference[];
  /** Endpoints a stream holds that the cluster state does not imply. */
  readonly extra: readonly ConvergenceDifference[];
  /** Endpoints held with other values than the cluster state implies (labels, identity, hints). */
  readonly stale: readonly ConvergenceDifference[];
}

/** Server options that shape what a stream is told (everything but where it listens and reads). */
export type TranslationOptions = Omit<
  DestinationServerOptions,
  "cluster" | "manifests" | "kubeconfig" | "kubeContext" | "addr" | "metricsAddr" | "logger"
>;

/**
 * Compares every observed stream with a from-scratch answer for the same path and token,
 * computed from `objects` (for example a fresh list from the API server, each with its `kind`).
 * Objects of kinds the server does not cache are ignored.
 */
export async function checkConvergence(
  streams: readonly ObservedStream[],
  objects: readonly KubeObject[],
  options: TranslationOptions = {},
): Promise<ConvergenceReport> {
  const expected = await referenceViews(streams, objects, options);
  const missing: ConvergenceDifference[] = [];
  const extra: ConvergenceDifference[] = [];
  const stale: ConvergenceDifference[] = [];
  streams.forEach((stream, i) => {
    const d = compareEndpointViews(expected[i] as EndpointView, stream.view);
    const { path } = stream;
    for (const e of d.missing) missing.push({ path, address: e.address, expected: e.expected });
    for (const e of d.extra) extra.push({ path, address: e.address, actual: e.held });
    for (const e of d.changed) {
      stale.push({ path, address: e.address, expected: e.expected, actual: e.held });
    }
  });
  return { streams: streams.length, missing, extra, stale };
}

/** Every object a cluster's caches hold, each with its `kind`: a snapshot to check against. */
export function clusterObjects(cluster: Cluster): KubeObject[] {
  const caches: Record<ResourceKind, { list(): readonly KubeObject[] }> = {
    Service: cluster.services,
    EndpointSlice: cluster.endpointSlices,
    Endpoints: cluster.endpoints,
    Pod: cluster.pods,
    ServiceProfile: cluster.serviceProfiles,
    Server: cluster.servers,
    ExternalWorkload: cluster.externalWorkloads,
    Node: cluster.nodes,
    ReplicaSet: cluster.replicaSets,
    Job: cluster.jobs,
  };
  return Object.entries(caches).flatMap(([kind, cache]) =>
    cache.list().map((obj) => (obj.kind === kind ? obj : { ...obj, kind })),
  );
}

/** A one-line summary for test failures and benchmark logs. */
export function describeConvergence(report: ConvergenceReport, limit = 5): string {
  const sample = (label: string, list: readonly ConvergenceDifference[]) =>
    list.length === 0
      ? []
      : [
          `${label}: ${list
            .slice(0, limit)
            .map((d) => `${d.path} ${d.address}`)
            .join(", ")}${list.length > limit ? ", …" : ""}`,
        ];
  return [
    `${report.streams} streams: ${report.missing.length} missing, ${report.extra.length} extra, ${report.stale.length} stale`,
    ...sample("missing", report.missing),
    ...sample("extra", report.extra),
    ...sample("stale", report.stale),
  ].join("; ");
}

/** How long the reference server may take to answer every stream (it answers from memory). */
const REFERENCE_TIMEOUT_MS = 10_000;

/** The sum of a counter's Get series on `server`'s registry. */
async function getCount(server: RunningDestinationServer, name: string): Promise<number> {
  const metric = await server.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? [])
    .filter((v) => v.labels.grpc_method === "Get")
    .reduce((n, v) => n + v.value, 0);
}

/**
 * Opens the same Get streams on a reference server whose caches hold `objects` from the start,
 * and returns what each was told, in `streams` order.
 */
async function referenceViews(
  streams: readonly ObservedStream[],
  objects: readonly KubeObject[],
  options: TranslationOptions,
): Promise<EndpointView[]> {
  const cluster = new MemoryCluster({ keepVersions: true });
  for (const obj of objects) {
    if (obj.kind !== undefined && Object.hasOwn(RESOURCE_KINDS, obj.kind)) cluster.apply(obj);
  }
  const server = await startDestinationServer({
    ...options,
    cluster,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({ level: "error" }),
  });
  const client = connect(server.grpcPort);
  try {
    const recorders = streams.map((s) => get(client, s.path, s.contextToken ?? ""));
    // A stream whose service has no endpoints is told nothing, so "nothing yet" and "nothing"
    // look alike. The server's counters settle it: a Get handler writes its initial state before
    // it returns, so once every call has started, the messages sent are all there will be, and
    // the streams hold their answers once as many have arrived. Arrival order across streams
    // proves nothing: grpc-js may deliver one stream's status before another's message.
    const deadline = Date.now() + REFERENCE_TIMEOUT_MS;
    const waitFor = async (done: () => Promise<boolean>, what: () => string) => {
      while (!(await done())) {
        if (Date.now() > deadline) {
          throw new Error(`reference server: ${what()} within ${REFERENCE_TIMEOUT_MS} ms`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await waitFor(
      async () => (await getCount(server, "grpc_server_started_total")) >= streams.length,
      () => "not every Get started",
    );
    const sent = await getCount(server, "grpc_server_msg_sent_total");
    const received = () => recorders.reduce((n, r) => n + r.received.length, 0);
    await waitFor(
      async () => received() >= sent,
      () => `${received()} of ${sent} messages arrived`,
    );
    return recorders.map((recorder) => {
      const view = new EndpointView();
      for (const message of recorder.received) view.apply(message);
      recorder.cancel();
      return view;
    });
  } finally {
    client.close();
    await server.close();
  }
}
