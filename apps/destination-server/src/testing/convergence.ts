// The convergence check: does every open Get stream hold exactly what the cluster state implies?
// The reference is computed from scratch by a second server on an in-memory copy of that state,
// where every object is cached before anything asks for it, so event order cannot matter there.
import {
  type Cluster,
  type KubeObject,
  MemoryCluster,
  RESOURCE_KINDS,
  type ResourceKind,
} from "@destination/k8s-discovery";
import type { Registry } from "prom-client";
import { startDestinationServer } from "../destination-server.js";
import { createServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions } from "../server-options.js";
import { type AnnouncedEndpoint, EndpointView, sameAnnouncement } from "./endpoint-view.js";
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
    const want = (expected[i] as EndpointView).endpoints;
    const have = stream.view.endpoints;
    for (const [address, endpoint] of want) {
      const held = have.get(address);
      if (held === undefined) missing.push({ path: stream.path, address, expected: endpoint });
      else if (!sameAnnouncement(held, endpoint)) {
        stale.push({ path: stream.path, address, expected: endpoint, actual: held });
      }
    }
    for (const [address, endpoint] of have) {
      if (!want.has(address)) extra.push({ path: stream.path, address, actual: endpoint });
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
  for (const obj of markerObjects()) cluster.apply(obj);
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
    // look alike. Requests on one connection reach their handlers in order, and a Get writes its
    // initial state from inside its handler: once the marker stream (opened last) has its first
    // message, every handler has run and written what it will. Written messages can still be
    // in flight (flow control interleaves streams), so then wait until the client has received
    // as many messages as the server counts as sent.
    const marker = get(client, `${MARKER_SERVICE}.${MARKER_NAMESPACE}.svc.cluster.local:80`);
    await marker.next();
    const sent = await messagesSent(server.registry);
    const deadline = Date.now() + 30_000;
    while (recorders.reduce((n, r) => n + r.received.length, 1) < sent) {
      if (Date.now() > deadline)
        throw new Error("convergence check: reference answers did not arrive");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    marker.cancel();
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

/** Get messages the server wrote to its streams so far (its `grpc_server_msg_sent_total`). */
async function messagesSent(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric("grpc_server_msg_sent_total");
  if (metric === undefined) throw new Error("convergence check: no grpc_server_msg_sent_total");
  const { values } = await metric.get();
  return values.filter((v) => v.labels.grpc_method === "Get").reduce((sum, v) => sum + v.value, 0);
}

const MARKER_NAMESPACE = "destination-convergence-check";
const MARKER_SERVICE = "marker";

/** A Service with one endpoint and no pod, served only by the reference server. */
function markerObjects(): KubeObject[] {
  const metadata = { name: MARKER_SERVICE, namespace: MARKER_NAMESPACE };
  return [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata,
      spec: { type: "ClusterIP", ports: [{ name: "http", port: 80, targetPort: 80 }] },
    } as KubeObject,
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { ...metadata, labels: { "kubernetes.io/service-name": MARKER_SERVICE } },
      addressType: "IPv4",
      ports: [{ name: "http", port: 80 }],
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
    } as KubeObject,
  ];
}
