import type { KubeObject, PartialObjectMetadata, Pod } from "@destination/core";
import {
  replicaSet as buildReplicaSet,
  NS,
  pod,
  podEndpoint,
  server,
  service,
  slice,
} from "@destination/test-support/builders";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { harness, LOCAL_KEY, type RecordingListener, WEB } from "../test/support/fixtures.js";

/** One object's life: its versions in order, `null` for a deletion. */
interface ObjectHistory {
  readonly kind: string;
  readonly name: string;
  readonly versions: readonly (KubeObject | null)[];
}

const PODS = ["web-0", "web-1", "web-2", "web-3", "web-4", "web-5"];
/** Each pod is listed by one slice only, so no two slices disagree about an endpoint. */
const SLICE_OF_POD = (i: number) => (i % 2 === 0 ? "web-a" : "web-b");

function podVersion(i: number, generation: number, owner: string | null, tier: boolean): Pod {
  const name = PODS[i] as string;
  return pod(name, {
    uid: `${name}-uid-${generation}`,
    ip: `10.0.0.${i + 1}`,
    labels: tier ? { app: "web", tier: "db" } : { app: "web" },
    ...(owner === null
      ? {}
      : {
          ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: owner, uid: owner }],
        }),
  });
}

function replicaSet(name: string, deployment: string | null): PartialObjectMetadata {
  return buildReplicaSet(name, deployment, deployment === null ? {} : { ownerUid: deployment });
}

const podHistory = (i: number) =>
  fc
    .array(
      fc.option(fc.record({ owner: fc.constantFrom(null, "rs-a", "rs-b"), tier: fc.boolean() }), {
        nil: null,
        freq: 4,
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map(
      (states): ObjectHistory => ({
        kind: "Pod",
        name: PODS[i] as string,
        versions: states.map((s, generation) =>
          s === null ? null : podVersion(i, generation, s.owner, s.tier),
        ),
      }),
    );

const sliceHistory = (name: string) =>
  fc
    .array(
      fc.option(
        fc.array(fc.record({ listed: fc.boolean(), ready: fc.boolean() }), {
          minLength: 6,
          maxLength: 6,
        }),
        {
          nil: null,
          freq: 5,
        },
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map(
      (states): ObjectHistory => ({
        kind: "EndpointSlice",
        name,
        versions: states.map((s) =>
          s === null
            ? null
            : slice(
                name,
                "web",
                PODS.flatMap((pod, i) => {
                  const state = s[i];
                  if (SLICE_OF_POD(i) !== name || !state?.listed) return [];
                  return [podEndpoint(pod, `10.0.0.${i + 1}`, { ready: state.ready })];
                }),
              ),
        ),
      }),
    );

const simpleHistory = (kind: string, name: string, make: () => KubeObject, deletable: boolean) =>
  fc.array(fc.boolean(), { minLength: 1, maxLength: deletable ? 3 : 1 }).map(
    (present): ObjectHistory => ({
      kind,
      name,
      versions: present.map((p, i) => (p || i === present.length - 1 ? make() : null)),
    }),
  );

const histories = fc.tuple(
  ...PODS.map((_, i) => podHistory(i)),
  sliceHistory("web-a"),
  sliceHistory("web-b"),
  simpleHistory("ReplicaSet", "rs-a", () => replicaSet("rs-a", "web"), false),
  fc
    .constantFrom(null, "web")
    .chain((deployment) =>
      simpleHistory("ReplicaSet", "rs-b", () => replicaSet("rs-b", deployment), true),
    ),
  simpleHistory(
    "Server",
    "db-opaque",
    () => server("db-opaque", { port: 8080, podSelector: { tier: "db" } }),
    true,
  ),
  simpleHistory("Service", "web", () => service("web"), true),
);

interface Step {
  readonly history: ObjectHistory;
  readonly version: KubeObject | null;
}

/** Interleaves the histories by the given keys, keeping each object's versions in order. */
function interleave(all: readonly ObjectHistory[], keys: readonly number[]): Step[] {
  let k = 0;
  const keyed: { key: number; step: Step }[] = [];
  for (const history of all) {
    const own = history.versions.map(() => keys[k++ % keys.length] as number).sort((a, b) => a - b);
    history.versions.forEach((version, i) => {
      keyed.push({ key: own[i] as number, step: { history, version } });
    });
  }
  return keyed.sort((a, b) => a.key - b.key).map((e) => e.step);
}

/** Kinds in the order their dependents read them: what a from-scratch computation sees. */
const DEPENDENCY_ORDER = ["ReplicaSet", "Pod", "Server", "Service", "EndpointSlice"];

/** What a listener holds, with every field an address carries to a proxy. */
function heldState(listener: RecordingListener) {
  return [...listener.held.entries()]
    .map(([key, { address: a }]) => ({
      key,
      endpoint: `${a.ip}:${a.port}`,
      owner: `${a.ownerKind}/${a.ownerName}`,
      opaque: a.opaqueProtocol,
      pod: a.pod?.metadata.uid ?? null,
      labels: a.pod?.metadata.labels ?? null,
    }))
    .sort((x, y) => x.key.localeCompare(y.key));
}

/** A listener subscribed after the final objects were applied in dependency order. */
function fromScratch(all: readonly ObjectHistory[]): RecordingListener {
  const reference = harness();
  const finals = all
    .map((h) => h.versions.at(-1))
    .filter((v): v is KubeObject => v != null)
    .sort(
      (a, b) => DEPENDENCY_ORDER.indexOf(a.kind ?? "") - DEPENDENCY_ORDER.indexOf(b.kind ?? ""),
    );
  for (const obj of finals) reference.cluster.apply(obj);
  return reference.listen();
}

describe("event ordering (property)", () => {
  it("any interleaving of the same object events ends in the addresses of applying the final objects in dependency order", () => {
    fc.assert(
      fc.property(
        histories,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.nat({ max: 40 }),
        (all, keys, subscribeAt) => {
          const steps = interleave(all, keys);
          const live = harness();
          let listener: RecordingListener | undefined;
          steps.forEach((step, i) => {
            if (i === subscribeAt) listener = live.listen();
            const { kind, name } = step.history;
            if (step.version === null) {
              live.cluster.delete(kind as Parameters<typeof live.cluster.delete>[0], NS, name);
            } else {
              live.cluster.apply(step.version);
            }
          });
          listener ??= live.listen();

          expect(heldState(listener)).toEqual(heldState(fromScratch(all)));
        },
      ),
      { numRuns: 400, seed: 20261201 },
    );
  });

  it("a service whose last listener left and that is subscribed again ends where a first subscription does", () => {
    fc.assert(
      fc.property(
        histories,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        (all, keys, a, b, c) => {
          const [subscribeAt = 0, leaveAt = 0, rejoinAt = 0] = [a, b, c].sort((x, y) => x - y);
          const steps = interleave(all, keys);
          const live = harness();
          let first: RecordingListener | undefined;
          let again: RecordingListener | undefined;
          steps.forEach((step, i) => {
            if (i === subscribeAt) first = live.listen();
            if (i === leaveAt && first !== undefined) {
              live.watcher.unsubscribe(WEB, 80, LOCAL_KEY, first);
              expect(live.metrics.value("endpoints_publishers", { cluster: "local" })).toBe(0);
            }
            if (i === rejoinAt && i > leaveAt) again = live.listen();
            const { kind, name } = step.history;
            if (step.version === null) {
              live.cluster.delete(kind as Parameters<typeof live.cluster.delete>[0], NS, name);
            } else {
              live.cluster.apply(step.version);
            }
          });
          again ??= live.listen();

          expect(heldState(again)).toEqual(heldState(fromScratch(all)));
        },
      ),
      { numRuns: 300, seed: 20261202 },
    );
  });
});
