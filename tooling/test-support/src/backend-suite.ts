import type { ExternalWorkload, KubeObject, Pod, Server, Service } from "@destination/core";
import {
  type Cluster,
  clusterCache,
  keyOf,
  RESOURCE_KINDS,
  type ResourceKind,
} from "@destination/k8s-discovery";
import {
  CONDITION_DEADLINE_MS,
  eventually as waitUntil,
} from "@destination/vitest-config/eventually";
import { describe, expect, it } from "vitest";
import {
  pod as buildPod,
  externalWorkload,
  node,
  podEndpoint,
  replicaSet,
  server,
  service,
  serviceProfile,
  slice,
} from "./builders.js";

/**
 * A backend under test, driven the way its users change it: API calls for a cluster, file
 * writes for a folder of manifests, method calls for memory.
 */
export interface BackendHarness {
  /** The cluster under test, not started yet; the suite starts it. */
  readonly cluster: Cluster;
  /** Creates or updates objects; the backend sees them eventually. */
  apply(...objects: KubeObject[]): Promise<void>;
  /** Deletes an object; the backend sees it eventually. */
  delete(kind: ResourceKind, namespace: string | undefined, name: string): Promise<void>;
  /**
   * Runs `change` (calls to `apply` and `delete`) while the backend cannot follow changes one by
   * one, then lets it catch up through a full list, as after a watch expired with `410 Gone`.
   * Resolves once the backend can see the changes.
   */
  whileDisconnected(change: () => Promise<void>): Promise<void>;
  /** Stops the cluster and cleans up. */
  close(): Promise<void>;
}

/** Builds a harness whose backend starts out holding `initialObjects`. */
export type BackendHarnessFactory = (
  initialObjects: readonly KubeObject[],
) => Promise<BackendHarness>;

export interface BackendSuiteOptions {
  /** How long an expected event may take; 5 s by default. */
  readonly eventTimeoutMs?: number;
}

type EventType = "add" | "update" | "delete";

/** One event as a handler saw it. */
export interface RecordedEvent {
  readonly type: EventType;
  readonly kind: ResourceKind;
  readonly key: string;
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/**
 * Records every event of every cache and checks, per object, that the events form a valid
 * history: add first, each update's old object is the last one delivered, delete last.
 */
export class EventRecorder {
  readonly events: RecordedEvent[] = [];
  readonly violations: string[] = [];
  readonly #current = new Map<string, KubeObject>();

  attach(cluster: Cluster): () => void {
    const detach = (Object.keys(RESOURCE_KINDS) as ResourceKind[]).map((kind) =>
      clusterCache(cluster, kind).addHandler({
        add: (obj) => this.#record({ type: "add", kind, key: keyOf(obj), object: obj }),
        update: (old, obj) =>
          this.#record({ type: "update", kind, key: keyOf(obj), object: obj, old }),
        delete: (obj) => this.#record({ type: "delete", kind, key: keyOf(obj), object: obj }),
      }),
    );
    return () => {
      for (const d of detach) d();
    };
  }

  /**
   * `type Kind key` lines, sorted: what changed, regardless of the order across caches. The
   * suite's marker objects are left out.
   */
  summary(from = 0): string[] {
    return this.events
      .slice(from)
      .filter((e) => !e.key.startsWith(`${NS}/${MARKER}`))
      .map((e) => `${e.type} ${e.kind} ${e.key}`)
      .sort();
  }

  last(type: EventType, kind: ResourceKind, key: string): RecordedEvent | undefined {
    return this.events.findLast((e) => e.type === type && e.kind === kind && e.key === key);
  }

  #record(event: RecordedEvent): void {
    this.events.push(event);
    const id = `${event.kind} ${event.key}`;
    const current = this.#current.get(id);
    const version = (o: KubeObject | undefined) => o?.metadata.resourceVersion;
    if (event.type === "add") {
      if (current) this.violations.push(`add of ${id}, which exists`);
      this.#current.set(id, event.object);
    } else if (event.type === "update") {
      // A resync re-delivers the current object as both old and new.
      if (!current) this.violations.push(`update of ${id}, which does not exist`);
      else if (version(event.old) !== version(current)) {
        this.violations.push(`update of ${id} from ${version(event.old)}, not ${version(current)}`);
      }
      this.#current.set(id, event.object);
    } else {
      if (!current) this.violations.push(`delete of ${id}, which does not exist`);
      else if (version(event.object) !== version(current)) {
        this.violations.push(
          `delete of ${id} carries ${version(event.object)}, not ${version(current)}`,
        );
      }
      this.#current.delete(id);
    }
  }
}

const NS = "shop";
/** The name prefix of the objects `settled` creates. */
const MARKER = "settled-marker-";
let markers = 0;

type MarkerKind = "Pod" | "Service" | "Server" | "ExternalWorkload";

/** A new object of `kind` whose arrival proves that earlier changes of its kind have arrived. */
function markerObject(kind: MarkerKind): KubeObject {
  const name = `${MARKER}${++markers}`;
  if (kind === "Pod") return pod(name, "10.0.0.250");
  if (kind === "Server") return opaqueServer(name, 9999);
  const like = backendSuiteFixture().find((o) => o.kind === kind) as KubeObject;
  const object = { ...like, metadata: { ...like.metadata, name } } as KubeObject;
  // A Service's cluster IP is the API server's to allocate, and "web" holds this one.
  if (kind === "Service") {
    return { ...object, spec: { ports: (like as Service).spec?.ports } } as KubeObject;
  }
  return object;
}

/** The objects every test starts from: one service with its workload, in every cached kind. */
export function backendSuiteFixture(): KubeObject[] {
  return [
    service("web", { namespace: NS, clusterIP: "10.96.0.10", selector: { app: "web" } }),
    slice("web-x1", "web", [podEndpoint("web-1", "10.0.0.1", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
    pod("web-1", "10.0.0.1"),
    replicaSet("web-5d4f", "web", { namespace: NS }),
    {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: "report-29000",
        namespace: NS,
        ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "report" }],
      },
    },
    node("node-a", { zone: "zone-a" }),
    serviceProfile(
      `web.${NS}.svc.cluster.local`,
      { routes: [{ name: "GET /", condition: { method: "GET", pathRegex: "/" } }] },
      { namespace: NS },
    ),
    server("web-http", {
      namespace: NS,
      port: 8080,
      proxyProtocol: "HTTP/1",
      podSelector: { app: "web" },
    }),
    externalWorkload("vm-1", {
      namespace: NS,
      labels: { app: "legacy" },
      meshTLS: { identity: "spiffe://vm-1", serverName: "vm-1" },
      ip: "192.168.1.5",
    }),
  ];
}

/** A Server: a kind whose whole content the API server stores as written (no status). */
function opaqueServer(name: string, port: number): Server {
  return server(name, { namespace: NS, port, podSelector: { app: "web" } });
}

/** A running pod of the `web` ReplicaSet on node-a. */
function pod(name: string, ip: string, extra: { labels?: Record<string, string> } = {}): Pod {
  return buildPod(name, {
    namespace: NS,
    ip,
    labels: { app: "web", ...extra.labels },
    replicaSet: "web-5d4f",
    nodeName: "node-a",
    hostIp: "172.18.0.2",
  });
}

/**
 * The behaviour every backend must show (README "The contract every backend keeps" and
 * "Indexes"): the initial list as adds before synced, add / update / delete as objects change,
 * relist reconciliation, indexes kept in step, owner lookups, handler removal.
 */
export function describeBackendSuite(
  name: string,
  makeHarness: BackendHarnessFactory,
  options: BackendSuiteOptions = {},
): void {
  const timeoutMs = options.eventTimeoutMs ?? CONDITION_DEADLINE_MS;
  const eventually = (check: () => void) => waitUntil(check, { timeoutMs });
  /**
   * Proves that no further event comes of the changes made so far to these kinds: creates a
   * marker object of each and waits for its add. A backend delivers the changes of one kind in
   * order, so the marker's add comes after every event of the changes made before it.
   */
  async function settled(
    harness: BackendHarness,
    recorder: EventRecorder,
    kinds: readonly MarkerKind[],
  ): Promise<void> {
    const created = kinds.map(markerObject);
    await harness.apply(...created);
    await eventually(() => {
      for (const object of created) {
        expect(recorder.last("add", object.kind as ResourceKind, keyOf(object))).toBeDefined();
      }
    });
  }

  /** A started backend with a recorder attached before start. */
  async function started(initial = backendSuiteFixture()) {
    const harness = await makeHarness(initial);
    const recorder = new EventRecorder();
    recorder.attach(harness.cluster);
    await harness.cluster.start();
    await harness.cluster.whenSynced();
    return { harness, recorder, cluster: harness.cluster };
  }

  async function withBackend(
    test: (ctx: Awaited<ReturnType<typeof started>>) => Promise<void>,
  ): Promise<void> {
    const ctx = await started();
    try {
      await test(ctx);
      expect(ctx.recorder.violations).toEqual([]);
    } finally {
      await ctx.harness.close();
    }
  }

  describe(`${name} backend`, () => {
    it("delivers every initial object as an add before it reports synced", async () => {
      const harness = await makeHarness(backendSuiteFixture());
      try {
        const recorder = new EventRecorder();
        recorder.attach(harness.cluster);
        expect(harness.cluster.hasSynced()).toBe(false);
        const seenAtSync = harness.cluster.whenSynced().then(() => recorder.summary());
        await harness.cluster.start();
        const expected = backendSuiteFixture()
          .map((o) => `add ${o.kind} ${keyOf(o)}`)
          .sort();
        expect(await seenAtSync).toEqual(expected);
        expect(harness.cluster.hasSynced()).toBe(true);
        for (const kind of Object.keys(RESOURCE_KINDS) as ResourceKind[]) {
          expect(clusterCache(harness.cluster, kind).hasSynced(), kind).toBe(true);
        }
        expect(harness.cluster.pods.get(NS, "web-1")?.status?.podIP).toBe("10.0.0.1");
        expect(harness.cluster.nodes.get("", "node-a")?.metadata.labels).toEqual({
          "topology.kubernetes.io/zone": "zone-a",
        });
        expect(recorder.violations).toEqual([]);
      } finally {
        await harness.close();
      }
    });

    // A Server, not a Pod: a real API server drops a Pod's status on create, so a created Pod
    // is an add followed by an update once its status is written.
    it("emits an add for a created object", () =>
      withBackend(async ({ harness, recorder, cluster }) => {
        const from = recorder.events.length;
        await harness.apply(opaqueServer("db", 5432));
        await eventually(() => expect(recorder.summary(from)).toEqual([`add Server ${NS}/db`]));
        expect(cluster.servers.get(NS, "db")?.spec?.proxyProtocol).toBe("opaque");
        await settled(harness, recorder, ["Server"]);
        expect(recorder.summary(from)).toEqual([`add Server ${NS}/db`]);
      }));

    it("emits an update with the old and new object: new resourceVersion, same uid", () =>
      withBackend(async ({ harness, recorder, cluster }) => {
        const before = cluster.pods.get(NS, "web-1");
        const from = recorder.events.length;
        await harness.apply(pod("web-1", "10.0.0.1", { labels: { version: "v2" } }));
        await eventually(() => expect(recorder.summary(from)).toEqual([`update Pod ${NS}/web-1`]));
        const event = recorder.last("update", "Pod", `${NS}/web-1`);
        expect(event?.old?.metadata.labels?.version).toBeUndefined();
        expect(event?.object.metadata.labels?.version).toBe("v2");
        expect(event?.old?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
        expect(event?.object.metadata.resourceVersion).not.toBe(before?.metadata.resourceVersion);
        expect(event?.object.metadata.uid).toBeTruthy();
        expect(event?.object.metadata.uid).toBe(before?.metadata.uid);
        expect(cluster.pods.get(NS, "web-1")?.metadata.labels?.version).toBe("v2");
      }));

    it("emits a delete carrying the last known object", () =>
      withBackend(async ({ harness, recorder, cluster }) => {
        const from = recorder.events.length;
        await harness.delete("Server", NS, "web-http");
        await eventually(() =>
          expect(recorder.summary(from)).toEqual([`delete Server ${NS}/web-http`]),
        );
        const gone = recorder.last("delete", "Server", `${NS}/web-http`)?.object as
          | Server
          | undefined;
        expect(gone?.spec?.proxyProtocol).toBe("HTTP/1");
        expect(cluster.servers.get(NS, "web-http")).toBeUndefined();
      }));

    it("reconciles a relist: what changed while disconnected, and nothing else", () =>
      withBackend(async ({ harness, recorder, cluster }) => {
        const from = recorder.events.length;
        await harness.whileDisconnected(async () => {
          await harness.apply(pod("web-3", "10.0.0.3"));
          await harness.apply({
            ...(backendSuiteFixture()[0] as Service),
            metadata: {
              name: "web",
              namespace: NS,
              annotations: { "config.linkerd.io/opaque-ports": "8080" },
            },
          });
          await harness.delete("ExternalWorkload", NS, "vm-1");
        });
        const expected = [
          `add Pod ${NS}/web-3`,
          `delete ExternalWorkload ${NS}/vm-1`,
          `update Service ${NS}/web`,
        ];
        await eventually(() => expect(recorder.summary(from)).toEqual(expected));
        await settled(harness, recorder, ["Pod", "Service", "ExternalWorkload"]);
        expect(recorder.summary(from)).toEqual(expected);
        const deleted = recorder.last("delete", "ExternalWorkload", `${NS}/vm-1`)?.object;
        expect((deleted as ExternalWorkload | undefined)?.spec?.workloadIPs).toEqual([
          { ip: "192.168.1.5" },
        ]);
        expect(cluster.services.get(NS, "web")?.metadata.annotations).toEqual({
          "config.linkerd.io/opaque-ports": "8080",
        });
      }));

    it("keeps the indexes in step with the caches", () =>
      withBackend(async ({ harness, cluster }) => {
        const names = (objects: KubeObject[]) => objects.map((o) => o.metadata.name);
        expect(names(cluster.indexes.podsByIp("10.0.0.1"))).toEqual(["web-1"]);
        expect(names(cluster.indexes.servicesByClusterIp("10.96.0.10"))).toEqual(["web"]);
        expect(names(cluster.indexes.endpointSlicesOfService(NS, "web"))).toEqual(["web-x1"]);
        expect(names(cluster.indexes.externalWorkloadsByIpPort("192.168.1.5", 8080))).toEqual([
          "vm-1",
        ]);
        const moved = pod("web-1", "10.0.0.9");
        const withHostPort: Pod = {
          ...moved,
          spec: {
            ...moved.spec,
            containers: [{ name: "app", ports: [{ containerPort: 8080, hostPort: 18080 }] }],
          },
        };
        await harness.apply(withHostPort);
        await eventually(() => {
          expect(names(cluster.indexes.podsByIp("10.0.0.9"))).toEqual(["web-1"]);
          expect(cluster.indexes.podsByIp("10.0.0.1")).toEqual([]);
          expect(names(cluster.indexes.podsByHostPort("172.18.0.2", 18080))).toEqual(["web-1"]);
        });
        await harness.delete("Pod", NS, "web-1");
        await eventually(() => {
          expect(cluster.indexes.podsByIp("10.0.0.9")).toEqual([]);
          expect(cluster.indexes.podsByHostPort("172.18.0.2", 18080)).toEqual([]);
        });
      }));

    it("resolves pod owners through the metadata caches", () =>
      withBackend(async ({ harness, cluster }) => {
        const web1 = cluster.pods.get(NS, "web-1") as Pod;
        expect(cluster.podOwner(web1)).toEqual({ kind: "deployment", name: "web" });
        expect(await cluster.fetchPodOwner(web1)).toEqual({ kind: "deployment", name: "web" });
        const batch: Pod = {
          ...pod("report-29000-abcde", "10.0.0.7"),
          metadata: {
            name: "report-29000-abcde",
            namespace: NS,
            ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "report-29000" }],
          },
        };
        await harness.apply(batch);
        await eventually(() => expect(cluster.pods.get(NS, batch.metadata.name)).toBeDefined());
        const stored = cluster.pods.get(NS, batch.metadata.name) as Pod;
        expect(cluster.podOwner(stored)).toEqual({ kind: "cronjob", name: "report" });
      }));

    it("stops delivering to a handler once it is removed", () =>
      withBackend(async ({ harness, recorder, cluster }) => {
        const removed = new EventRecorder();
        const detach = removed.attach(cluster);
        detach();
        const from = recorder.events.length;
        await harness.apply(opaqueServer("cache", 6379));
        await eventually(() => expect(recorder.summary(from)).toEqual([`add Server ${NS}/cache`]));
        expect(removed.events).toEqual([]);
      }));
  });
}
