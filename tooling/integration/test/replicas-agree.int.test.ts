// Three destination-server replicas on one real kube-apiserver, as deploy/ runs them: each lists
// and watches on its own, so a proxy that reconnects to another replica must be told the same
// thing. The same Get and GetProfile streams are opened on each replica, the cluster changes in
// rounds (Pods, EndpointSlices, Services, Servers, ServiceProfiles, written while the streams are
// open), and after each round the replicas must reach the same end state: every Get stream's
// announced endpoints with every value a proxy reads, and every GetProfile stream's latest
// profile. That state must also be the cluster's: the addresses and hints the test wrote, and
// the answer of a server started from scratch on the final objects. One replica loses the API
// server for part of a round, as on a partition, and must catch up once it is back.
import { isDeepStrictEqual } from "node:util";
import { type JsonValue, toJson, WeightedAddrSchema } from "@destination/proto";
import {
  CLUSTER_POD,
  node,
  server as opaqueServer,
  pod,
  podEndpoint,
  replicaSet,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import {
  type AnnouncedEndpoint,
  checkConvergence,
  describeConvergence,
  EndpointView,
  get,
  getProfile,
  type StreamRecorder,
  sameAnnouncement,
  sleep,
} from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import { SLICE_MODE_KINDS } from "../src/cluster-harness.js";
import { CutProxy } from "../src/cut-proxy.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { type ServerUnderTest, startServer } from "../src/server.js";

const NS = "shop";
const REPLICAS = 3;
const ROUNDS = 6;
/** How long the replicas may take to agree after a round; they usually need well under 1 s. */
const SETTLE_MS = 20_000;
const NODES: Record<string, string> = {
  "node-a": "zone-a",
  "node-b": "zone-b",
  "node-c": "zone-c",
};
const SERVICES = ["cart", "catalog", "checkout", "search"] as const;
type ServiceName = (typeof SERVICES)[number];
/** The Server that makes checkout's `http` port opaque, on in odd rounds. */
const OPAQUE_SERVER = "checkout-opaque";
/** ServiceProfiles churn on these; the others never have one. */
const PROFILED: readonly ServiceName[] = ["cart", "catalog"];
/** The round during which the last replica's connection to the API server is cut. */
const CUT_ROUND = 4;
/** Deleted, with its slices, in this round and created again in the next one. */
const GONE_ROUND = 2;
const GONE: ServiceName = "search";

/** A small seeded generator: the churn differs between rounds and is the same in every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Backend {
  readonly pod: string;
  readonly ip: string;
  readonly node: string;
  readonly hash: string;
  ready: boolean;
  /** Which of the service's two slices lists it. */
  slice: 0 | 1;
}

/** What the test wrote for one service: the state the replicas must converge to. */
interface ServiceModel {
  readonly name: ServiceName;
  readonly index: number;
  exists: boolean;
  hash: string;
  backends: Backend[];
  /** Started pods that no slice lists yet. */
  starting: Backend[];
  /** Route names of its ServiceProfile; undefined while it has none. */
  routes: string[] | undefined;
}

const authority = (svc: ServiceName) => `${svc}.${NS}.svc.cluster.local:80`;
const clusterIp = (m: ServiceModel) => `10.96.20.${10 + m.index}`;

let ctx: IntegrationEnv | undefined;
const replicas: ServerUnderTest[] = [];
/** Between the last replica and the API server. */
let proxy: CutProxy | undefined;
const recorders: StreamRecorder<never>[] = [];
const rand = random(16);
const models: ServiceModel[] = SERVICES.map((name, index) => ({
  name,
  index,
  exists: true,
  hash: "0000000000",
  backends: [],
  starting: [],
  routes: undefined,
}));
let nextHost = 10;
let opaqueOn = false;
/** A checkout pod that is never removed, for the GetProfile stream on its IP. */
let pinned: Backend | undefined;

function model(name: ServiceName): ServiceModel {
  return models.find((m) => m.name === name) as ServiceModel;
}

function api() {
  if (!ctx) throw new Error("no API server");
  return ctx.api;
}

// Object builders from the model.

function podObject(m: ServiceModel, b: Backend) {
  return pod(b.pod, {
    ...CLUSTER_POD,
    namespace: NS,
    ip: b.ip,
    labels: { "pod-template-hash": String(`${m.name}-${b.hash}`.split("-").pop()), app: m.name },
    replicaSet: `${m.name}-${b.hash}`,
    nodeName: b.node,
    serviceAccountName: m.name,
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });
}

function sliceObjects(m: ServiceModel) {
  return ([0, 1] as const).map((i) =>
    slice(
      `${m.name}-${i}`,
      m.name,
      m.backends
        .filter((b) => b.slice === i)
        .map((b) =>
          podEndpoint(b.pod, b.ip, { namespace: NS, zone: NODES[b.node], ready: b.ready }),
        ),
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
  );
}

function serviceObject(m: ServiceModel) {
  return service(m.name, {
    namespace: NS,
    ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
    clusterIP: clusterIp(m),
  });
}

function profileObject(m: ServiceModel, routes: string[]) {
  return serviceProfile(
    `${m.name}.${NS}.svc.cluster.local`,
    {
      routes: routes.map((name) => ({
        name,
        condition: { method: "GET", pathRegex: `/${name.replace(/\W/g, "-")}` },
      })),
    },
    { namespace: NS },
  );
}

function newHash(): string {
  return Math.floor(rand() * 0xffffffffff)
    .toString(16)
    .padStart(10, "0");
}

/** A new backend of `m` on a node picked at random, with an IP never used before. */
function newBackend(m: ServiceModel): Backend {
  const host = nextHost++;
  const nodeName = Object.keys(NODES)[Math.floor(rand() * 3)] as string;
  return {
    pod: `${m.name}-${m.hash}-${host}`,
    ip: `10.244.${m.index}.${host}`,
    node: nodeName,
    hash: m.hash,
    ready: true,
    slice: rand() < 0.5 ? 0 : 1,
  };
}

// The churn: what a rollout, a scale-down, a failing readiness probe, a policy change and a
// profile edit write, in the orders their controllers would. A round has two phases, as in a
// cluster: pods start (with their ReplicaSet, for a new revision), and once every replica has
// them the EndpointSlice controller lists them and everything else changes.

/** Phase one: the new pods of each service, not in any slice yet. */
async function startPods(m: ServiceModel, round: number): Promise<void> {
  if (m.name === GONE && round === GONE_ROUND) return;
  let count = 1 + Math.floor(rand() * 2);
  if (!m.exists) {
    // Back after a round away.
    m.exists = true;
    m.hash = newHash();
    count = 2;
    await api().apply(serviceObject(m));
  } else if (rand() < 0.4) m.hash = newHash();
  const started = Array.from({ length: count }, () => newBackend(m));
  await api().apply(replicaSet(`${m.name}-${m.hash}`, m.name, { namespace: NS }));
  await api().apply(...started.map((b) => podObject(m, b)));
  m.starting.push(...started);
}

async function removeBackend(m: ServiceModel): Promise<void> {
  const candidates = m.backends.filter((b) => b !== pinned);
  const gone = candidates[Math.floor(rand() * candidates.length)];
  if (gone === undefined) return;
  m.backends = m.backends.filter((b) => b !== gone);
  // The pod goes first or its endpoint does: both orders happen in a cluster.
  if (rand() < 0.5) {
    await api().delete("Pod", NS, gone.pod);
    await api().apply(...sliceObjects(m));
  } else {
    await api().apply(...sliceObjects(m));
    await api().delete("Pod", NS, gone.pod);
  }
}

/** Phase two for one service: its slices take the started pods, lose one, flip one. */
async function churnEndpoints(m: ServiceModel, round: number): Promise<void> {
  if (m.name === GONE && round === GONE_ROUND) {
    m.exists = false;
    await api().delete("Service", NS, m.name);
    // No EndpointSlice controller runs here to delete its slices, nor a garbage collector to
    // delete its pods: the test does both.
    for (const i of [0, 1]) await api().delete("EndpointSlice", NS, `${m.name}-${i}`);
    for (const b of m.backends) await api().delete("Pod", NS, b.pod);
    m.backends = [];
    return;
  }
  m.backends.push(...m.starting.splice(0));
  await api().apply(...sliceObjects(m));
  if (m.backends.length > 2) await removeBackend(m);
  // A readiness probe turns, and the EndpointSlice controller moves an endpoint between slices.
  const flip = m.backends[Math.floor(rand() * m.backends.length)];
  if (flip) flip.ready = !flip.ready;
  const moved = m.backends[Math.floor(rand() * m.backends.length)];
  if (moved) moved.slice = moved.slice === 0 ? 1 : 0;
  await api().apply(...sliceObjects(m));
}

async function churnProfile(m: ServiceModel, round: number): Promise<void> {
  if (m.routes !== undefined && rand() < 0.3) {
    m.routes = undefined;
    await api().delete("ServiceProfile", NS, `${m.name}.${NS}.svc.cluster.local`);
    return;
  }
  const count = 1 + Math.floor(rand() * 3);
  m.routes = Array.from({ length: count }, (_, i) => `GET /r${round}/${i}`);
  await api().apply(profileObject(m, m.routes));
}

/** One round; `partition` runs around phase two. */
async function churnRound(
  round: number,
  partition: (phaseTwo: () => Promise<void>) => Promise<void> = (f) => f(),
): Promise<void> {
  // Each service's changes in sequence, the services side by side: their events interleave.
  // No wait for the replicas to cache the pods before slices list them: a replica that sees a
  // slice before its pods adds the endpoints when the pods arrive.
  await Promise.all(models.map((m) => startPods(m, round)));
  await partition(async () => {
    await Promise.all([
      ...models.map((m) => churnEndpoints(m, round)),
      ...PROFILED.map((name) => churnProfile(model(name), round)),
      (async () => {
        opaqueOn = round % 2 === 1;
        if (opaqueOn) {
          await api().apply(
            opaqueServer(OPAQUE_SERVER, {
              namespace: NS,
              podSelector: { app: "checkout" },
              port: "http",
            }),
          );
        } else await api().delete("Server", NS, OPAQUE_SERVER);
      })(),
    ]);
  });
}

// The streams, the same on every replica.

interface GetSpec {
  readonly svc: ServiceName;
  readonly token: string;
}

const GET_SPECS: GetSpec[] = SERVICES.flatMap((svc) => [
  { svc, token: "" },
  // A proxy's token: the endpoints carry its zone's locality.
  { svc, token: JSON.stringify({ ns: NS, nodeName: "node-b", pod: "client" }) },
]);

/** One stream of a replica, named in failure messages. */
interface Opened {
  readonly label: string;
  readonly recorder: StreamRecorder<never>;
}

interface GetStreams {
  readonly spec: GetSpec;
  /** The same request on every replica; the first is what the others are compared with. */
  readonly opened: Opened[];
}

interface ProfileStreams {
  readonly path: string;
  /** What the latest profile must say, from the model. */
  readonly check: (profile: JsonValue | undefined) => string | undefined;
  readonly opened: Opened[];
}

const getStreams: GetStreams[] = [];
const profileStreams: ProfileStreams[] = [];

function track<S>(label: string, s: S): Opened {
  recorders.push(s as StreamRecorder<never>);
  return { label, recorder: s as StreamRecorder<never> };
}

/** Opens every Get and GetProfile stream on every replica; `reopened` marks a reconnect. */
function openStreams(reopened: boolean): void {
  const label = (i: number) => `replica ${i}${reopened ? " (reopened)" : ""}`;
  for (const spec of GET_SPECS) {
    let entry = getStreams.find((g) => g.spec === spec);
    if (!entry) {
      entry = { spec, opened: [] };
      getStreams.push(entry);
    }
    for (const [i, r] of replicas.entries()) {
      entry.opened.push(track(label(i), get(r.client, authority(spec.svc), spec.token)));
    }
  }
  for (const entry of profileStreams) {
    for (const [i, r] of replicas.entries()) {
      entry.opened.push(track(label(i), getProfile(r.client, entry.path)));
    }
  }
}

function viewOf(recorder: StreamRecorder<never>): EndpointView {
  const view = new EndpointView();
  for (const message of recorder.received) view.apply(message);
  return view;
}

const asJson = (e: AnnouncedEndpoint) =>
  ({ ...(toJson(WeightedAddrSchema, e.addr) as object), setLabels: e.setLabels }) as Record<
    string,
    unknown
  >;

/** Two announcements of one address, reduced to the fields in which they differ. */
function showDifference(a: AnnouncedEndpoint | undefined, b: AnnouncedEndpoint | undefined) {
  if (a === undefined || b === undefined) {
    const show = (e: AnnouncedEndpoint | undefined) =>
      e === undefined ? "absent" : JSON.stringify(asJson(e));
    return [show(a), show(b)];
  }
  const [x, y] = [asJson(a), asJson(b)];
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(
    (k) => !isDeepStrictEqual(x[k], y[k]),
  );
  const pick = (o: Record<string, unknown>) =>
    JSON.stringify(Object.fromEntries(keys.map((k) => [k, o[k] ?? null])));
  return [pick(x), pick(y)];
}

function routeNames(profile: JsonValue | undefined): string[] {
  const routes = (profile as { routes?: { metricsLabels?: { route?: string } }[] } | undefined)
    ?.routes;
  return (routes ?? []).map((r) => r.metricsLabels?.route ?? "?");
}

/**
 * Everything that keeps the replicas from the agreed, correct end state, one readable line
 * each; empty once they are there.
 */
function differences(): string[] {
  const out: string[] = [];
  for (const { spec, opened } of getStreams) {
    const what = `Get ${authority(spec.svc)}${spec.token ? " (with a node-b token)" : ""}`;
    for (const { label, recorder } of opened) {
      if (recorder.ended) {
        out.push(`${what}: ${label} ended ${recorder.ended.code} ${recorder.ended.details}`);
      }
    }
    const views = opened.map((o) => viewOf(o.recorder));
    const first = views[0] as EndpointView;
    const firstLabel = opened[0]?.label;
    views.forEach((view, i) => {
      if (i === 0) return;
      const addresses = new Set([...first.endpoints.keys(), ...view.endpoints.keys()]);
      for (const address of [...addresses].sort()) {
        const a = first.endpoints.get(address);
        const b = view.endpoints.get(address);
        if (a !== undefined && b !== undefined && sameAnnouncement(a, b)) continue;
        const [x, y] = showDifference(a, b);
        out.push(`${what} ${address}:\n    ${firstLabel}: ${x}\n    ${opened[i]?.label}: ${y}`);
      }
    });
    // What the test wrote: the ready endpoints, and checkout's opaque hint with its Server.
    const m = model(spec.svc);
    const want = m.backends
      .filter((b) => b.ready)
      .map((b) => `${b.ip}:8080`)
      .sort();
    if (!isDeepStrictEqual(first.addresses(), want)) {
      out.push(
        `${what}: ${firstLabel} announces [${first.addresses()}], the cluster has [${want}]`,
      );
    }
    if (spec.svc === "checkout") {
      for (const [address, e] of first.endpoints) {
        const opaque = e.addr.protocolHint?.opaqueTransport !== undefined;
        if (opaque !== opaqueOn) {
          out.push(`${what} ${address}: opaque transport ${opaque}, the Server says ${opaqueOn}`);
        }
      }
    }
  }
  for (const { path, check, opened } of profileStreams) {
    for (const { label, recorder } of opened) {
      if (recorder.ended) out.push(`GetProfile ${path}: ${label} ended ${recorder.ended.code}`);
    }
    const latest = opened.map((o) => o.recorder.received.at(-1));
    latest.forEach((profile, i) => {
      if (i === 0 || isDeepStrictEqual(profile, latest[0])) return;
      out.push(
        `GetProfile ${path}:\n    ${opened[0]?.label}: ${JSON.stringify(latest[0])}\n    ${opened[i]?.label}: ${JSON.stringify(profile)}`,
      );
    });
    const wrong = check(latest[0]);
    if (wrong) out.push(`GetProfile ${path}: ${wrong}`);
  }
  return out;
}

/** Polls until the replicas agree on the cluster's state; fails with what differs at the deadline. */
async function settle(when: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const diff = differences();
    if (diff.length === 0) return Date.now() - started;
    if (Date.now() - started > SETTLE_MS) {
      throw new Error(
        `${when}: the replicas did not agree within ${SETTLE_MS} ms:\n  ${diff.slice(0, 20).join("\n  ")}${diff.length > 20 ? `\n  … ${diff.length - 20} more` : ""}`,
      );
    }
    await sleep(100);
  }
}

/** The cached kinds as the API server holds them now, each with its kind. */
async function clusterObjects() {
  const objects: KubeObject[] = [];
  for (const kind of SLICE_MODE_KINDS) {
    for (const obj of await api().list(kind)) objects.push({ ...obj, kind });
  }
  return objects;
}

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.apply(
    ...Object.entries(NODES).map(([n, zone]) =>
      node(n, { labels: { "topology.kubernetes.io/zone": zone } }),
    ),
  );
  for (const m of models) {
    await ctx.api.apply(serviceObject(m));
    const initial = Array.from({ length: 3 }, () => newBackend(m));
    await ctx.api.apply(replicaSet(`${m.name}-${m.hash}`, m.name, { namespace: NS }));
    await ctx.api.apply(...initial.map((b) => podObject(m, b)));
    m.backends.push(...initial);
    await ctx.api.apply(...sliceObjects(m));
  }
  pinned = model("checkout").backends[0];
  for (let i = 0; i < REPLICAS - 1; i++) replicas.push(await startServer(ctx.env.kubeconfigPath));
  proxy = await CutProxy.start(Number(new URL(ctx.env.server).port));
  replicas.push(await startServer(proxy.writeKubeconfig(ctx.env, "last-replica.kubeconfig")));

  for (const svc of SERVICES) {
    profileStreams.push({
      path: authority(svc),
      check: (profile) => {
        const want = model(svc).routes ?? [];
        const have = routeNames(profile);
        return isDeepStrictEqual(have, want)
          ? undefined
          : `routes [${have}], the ServiceProfile has [${want}]`;
      },
      opened: [],
    });
  }
  profileStreams.push({
    path: `${pinned?.ip}:8080`,
    check: (profile) => {
      const opaque = (profile as { opaqueProtocol?: boolean } | undefined)?.opaqueProtocol === true;
      return opaque === opaqueOn
        ? undefined
        : `opaqueProtocol ${opaque}, the Server says ${opaqueOn}`;
    },
    opened: [],
  });
  openStreams(false);
});

afterAll(async () => {
  for (const r of recorders) r.cancel();
  for (const r of replicas) await r.close();
  await proxy?.close();
  await ctx?.stop();
});

describe("three replicas on one API server", () => {
  it("agree on every stream's end state after each round of churn, and it is the cluster's", async () => {
    const settled: number[] = [await settle("before any churn")];
    for (let round = 1; round <= ROUNDS; round++) {
      if (round === CUT_ROUND && proxy && ctx) {
        // The last replica misses phase two and, with etcd compacted, cannot resume its
        // watches: it has to list everything again once it reaches the API server.
        const { env } = ctx;
        const cut = proxy;
        const accepted = cut.accepted;
        await churnRound(round, async (phaseTwo) => {
          cut.cut();
          try {
            await phaseTwo();
            await env.compactEtcd();
          } finally {
            cut.restore();
          }
        });
        settled.push(await settle(`after round ${round}, the last replica cut off during it`));
        expect(cut.accepted, "the last replica reconnected").toBeGreaterThan(accepted);
        continue;
      }
      await churnRound(round);
      settled.push(await settle(`after round ${round}`));
    }
    // Proxies that reconnect now, to any replica, are told what the streams that stayed hold.
    openStreams(true);
    settled.push(await settle("after reopening every stream"));
    // A from-scratch answer on the final objects: the values the replicas agree on are right.
    const report = await checkConvergence(
      getStreams.map(({ spec, opened }) => ({
        path: authority(spec.svc),
        contextToken: spec.token,
        view: viewOf((opened[0] as Opened).recorder),
      })),
      await clusterObjects(),
    );
    expect(
      report.missing.length + report.extra.length + report.stale.length,
      describeConvergence(report),
    ).toBe(0);
    // Something actually changed under the streams: each long-lived Get stream saw churn.
    for (const { opened } of getStreams) {
      for (const { recorder } of opened.slice(0, REPLICAS)) {
        expect(recorder.received.length).toBeGreaterThan(1);
      }
    }
    console.info(`[replicas-agree] settled in ${settled.join(", ")} ms`);
  });
});
