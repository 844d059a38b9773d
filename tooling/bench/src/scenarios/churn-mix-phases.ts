/**
 * The kinds of change of `churn-mix`, one phase each, written against a model of what the
 * cluster holds. Every phase leaves the cluster the size and shape it found it (a split slice is
 * merged again, a scaled-up service scaled down, a created Server deleted), so that each pass of
 * either server starts from an equivalent cluster.
 */
import {
  FIRST_HASH,
  namespaceOf,
  pod,
  podIp,
  policyServer,
  replicaSet,
  type SliceEndpointRef,
  service,
  serviceName,
  serviceProfile,
  slice,
  sliceName,
} from "../fixtures.js";
import type { Step } from "../paced-writes.js";

/** One kind of change: lanes of steps, built when the phase starts. */
export interface ChurnPhase {
  readonly name: string;
  lanes(): Step[][];
}

export interface ChurnMixSizes {
  readonly services: number;
  /** Services 0 … watched-1 have streams; the others none. */
  readonly watched: number;
  /** Services each phase touches (a fifth of it for the unwatched phase's parts). */
  readonly perPhase: number;
}

/** What the cluster holds now, as the phases change it. */
export class ChurnModel {
  readonly #refs: SliceEndpointRef[][];
  readonly #hash: string[];
  readonly #profileRevision: number[];
  readonly #cursor = new Map<string, number>();
  #nextIp: number;
  #seq = 0;
  #round = 0;

  constructor(
    readonly sizes: ChurnMixSizes,
    endpoints: SliceEndpointRef[][],
    firstFreeIp: number,
  ) {
    this.#refs = endpoints;
    this.#hash = endpoints.map(() => FIRST_HASH);
    this.#profileRevision = endpoints.map(() => 0);
    this.#nextIp = firstFreeIp;
  }

  /** The ServiceProfiles of the watched services, written with the dataset. */
  initialProfiles() {
    return Array.from({ length: this.sizes.watched }, (_, s) => serviceProfile(s, 0));
  }

  /** The next `n` services of one pool, in turn, so passes touch different ones. */
  pick(key: string, pool: "watched" | "unwatched", n: number): number[] {
    const { watched, services } = this.sizes;
    const [first, size] = pool === "watched" ? [0, watched] : [watched, services - watched];
    if (size <= 0) return [];
    const at = this.#cursor.get(`${pool}:${key}`) ?? 0;
    this.#cursor.set(`${pool}:${key}`, at + n);
    return Array.from({ length: Math.min(n, size) }, (_, i) => first + ((at + i) % size));
  }

  /** A new pod of service `s` (not written yet). */
  newRef(s: number): SliceEndpointRef {
    const seq = this.#seq++;
    return {
      pod: `${serviceName(s)}-${this.#hash[s]}-m${seq}`,
      ip: podIp(this.#nextIp++),
      node: seq,
    };
  }

  refs(s: number): SliceEndpointRef[] {
    return this.#refs[s] as SliceEndpointRef[];
  }

  hash(s: number): string {
    return this.#hash[s] as string;
  }

  /** A new pod-template hash for service `s`: its next rollout. */
  nextHash(s: number): string {
    const hash = `${FIRST_HASH.slice(0, 4)}${(++this.#seq).toString(36)}`;
    this.#hash[s] = hash;
    return hash;
  }

  nextProfileRevision(s: number): number {
    const revision = (this.#profileRevision[s] ?? 0) + 1;
    this.#profileRevision[s] = revision;
    return revision;
  }

  nextRound(): number {
    return ++this.#round;
  }
}

const podOf = (s: number, ref: SliceEndpointRef, hash: string) =>
  pod(s, ref.pod, ref.ip, ref.node, hash);

/** A rolling deploy: a new ReplicaSet, each pod replaced by one of it, in the slice first. */
function rollout(model: ChurnModel, s: number): Step[] {
  const hash = model.nextHash(s);
  const steps: Step[] = [(w) => w.apply(replicaSet(s, hash))];
  for (const old of [...model.refs(s)]) {
    steps.push(async (w) => {
      const ref = model.newRef(s);
      const refs = model.refs(s);
      await w.apply(podOf(s, ref, hash));
      refs.push(ref);
      await w.apply(slice(s, refs));
      refs.splice(refs.indexOf(old), 1);
      await w.apply(slice(s, refs));
      await w.delete("Pod", namespaceOf(s), old.pod);
    });
  }
  return steps;
}

/** `n` pods added one by one (Running, then in the slice), then removed again. */
function scaleUpDown(model: ChurnModel, s: number, n: number): Step[] {
  const added: SliceEndpointRef[] = [];
  const up: Step = async (w) => {
    const ref = model.newRef(s);
    await w.apply(podOf(s, ref, model.hash(s)));
    model.refs(s).push(ref);
    added.push(ref);
    await w.apply(slice(s, model.refs(s)));
  };
  const down: Step = async (w) => {
    const ref = added.shift() as SliceEndpointRef;
    const refs = model.refs(s);
    refs.splice(refs.indexOf(ref), 1);
    await w.apply(slice(s, refs));
    await w.delete("Pod", namespaceOf(s), ref.pod);
  };
  return [...Array.from({ length: n }, () => up), ...Array.from({ length: n }, () => down)];
}

/** The slice split in two (its second half moved to a new slice), then merged back. */
function splitMerge(s: number, model: ChurnModel): Step[] {
  const second = sliceName(s, "split");
  return [
    async (w) => {
      const refs = model.refs(s);
      const half = Math.ceil(refs.length / 2);
      await w.apply(slice(s, refs.slice(half), { name: second }));
      await w.apply(slice(s, refs.slice(0, half)));
    },
    async (w) => {
      await w.apply(slice(s, model.refs(s)));
      await w.delete("EndpointSlice", namespaceOf(s), second);
    },
  ];
}

/** A label edit on each of the service's first `n` pods. */
function relabel(model: ChurnModel, s: number, n: number): Step[] {
  const round = String(model.nextRound());
  return model
    .refs(s)
    .slice(0, n)
    .map(
      (ref): Step =>
        (w) =>
          w.mergePatch("Pod", namespaceOf(s), ref.pod, {
            metadata: { labels: { "bench.destination/round": round } },
          }),
    );
}

/** Each of `n` pods turns unready (kubelet, then the slice) and ready again. */
function unreadyReady(model: ChurnModel, s: number, n: number): Step[] {
  const notReady = new Set<string>();
  const ready = (ref: SliceEndpointRef, status: "True" | "False"): Step => {
    return async (w) => {
      await w.mergePatch(
        "Pod",
        namespaceOf(s),
        ref.pod,
        { status: { conditions: [{ type: "Ready", status }] } },
        { status: true },
      );
      if (status === "False") notReady.add(ref.pod);
      else notReady.delete(ref.pod);
      await w.apply(slice(s, model.refs(s), { notReady }));
    };
  };
  const pods = model.refs(s).slice(0, n);
  return [...pods.map((ref) => ready(ref, "False")), ...pods.map((ref) => ready(ref, "True"))];
}

/** An opaque Server on the service's pods, deleted; then an HTTP/1 one, deleted. */
function serverCreateDelete(s: number): Step[] {
  const ns = namespaceOf(s);
  return [
    (w) => w.apply(policyServer(s, `${serviceName(s)}-opaque`, "opaque")),
    (w) => w.delete("Server", ns, `${serviceName(s)}-opaque`),
    (w) => w.apply(policyServer(s, `${serviceName(s)}-http1`, "HTTP/1")),
    (w) => w.delete("Server", ns, `${serviceName(s)}-http1`),
  ];
}

/** `n` edits of the service's ServiceProfile (its route's timeout). */
function profileEdits(model: ChurnModel, s: number, n: number): Step[] {
  return Array.from(
    { length: n },
    () => (w) => w.apply(serviceProfile(s, model.nextProfileRevision(s))),
  );
}

/** The Service's target port from the pods' port name to its number, and back. */
function targetPortFlip(s: number): Step[] {
  return [(w) => w.apply(service(s, 8080)), (w) => w.apply(service(s, "http"))];
}

/** The phases in the order they run. */
export function churnPhases(model: ChurnModel): ChurnPhase[] {
  const k = model.sizes.perPhase;
  const part = Math.max(1, Math.round(k / 4));
  const watched = (key: string, n: number) => model.pick(key, "watched", n);
  const unwatched = (key: string, n: number) => model.pick(key, "unwatched", n);
  return [
    { name: "rolling-deploy", lanes: () => watched("rollout", part).map((s) => rollout(model, s)) },
    {
      name: "scale-up-down",
      lanes: () => watched("scale", k).map((s) => scaleUpDown(model, s, 5)),
    },
    {
      name: "slice-split-merge",
      lanes: () => watched("split", k).map((s) => splitMerge(s, model)),
    },
    { name: "pod-relabel", lanes: () => watched("relabel", k).map((s) => relabel(model, s, 5)) },
    {
      name: "pod-unready-ready",
      lanes: () => watched("unready", part).map((s) => unreadyReady(model, s, 5)),
    },
    { name: "server-create-delete", lanes: () => watched("server", k).map(serverCreateDelete) },
    {
      name: "serviceprofile-edit",
      lanes: () => watched("profile", k).map((s) => profileEdits(model, s, 5)),
    },
    { name: "service-target-port", lanes: () => watched("port", k).map(targetPortFlip) },
    {
      name: "unwatched-objects",
      lanes: () => [
        ...unwatched("relabel", k).map((s) => relabel(model, s, 5)),
        ...unwatched("scale", part).map((s) => scaleUpDown(model, s, 5)),
        ...unwatched("split", part).map((s) => splitMerge(s, model)),
        ...unwatched("unready", part).map((s) => unreadyReady(model, s, 5)),
        ...unwatched("server", part).map(serverCreateDelete),
        ...unwatched("profile", part).map((s) => profileEdits(model, s, 5)),
        ...unwatched("port", part).map(targetPortFlip),
      ],
    },
  ];
}
