// Pods listed and watched as JSON against protobuf, each read into what the cache keeps and
// checked as the cache checks it (decision 0012). `pnpm -F @destination/k8s-discovery
// bench:decode [pods] [runs]`: each path runs in a fresh process (its first pass is the cold
// one a start pays), alternating, and the medians are printed.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { create, fromBinary, toBinary, type UnknownField } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { KubeObject, Pod } from "@destination/core";
import { PodSchema } from "../src/gen/k8s/core/v1/core_pb.js";
import { EncodedListSchema, WatchEventSchema } from "../src/gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../src/gen/k8s/runtime/runtime_pb.js";
import { PROTOBUF_MAGIC } from "../src/kube/api-resource.js";
import { NdjsonLines } from "../src/kube/body-chunks.js";
import { ListItems } from "../src/kube/list-items.js";
import { unwrapEnvelope } from "../src/kube/protobuf-decode.js";
import { ProtobufListItems } from "../src/kube/protobuf-list-items.js";
import { readPod } from "../src/kube/protobuf-pod.js";
import { ProtobufWatchFrames, readProtobufWatchEvent } from "../src/kube/protobuf-watch-events.js";
import { parseWatchEvent } from "../src/kube/watch-event.js";
import { objectProblem, typedObjectProblem } from "../src/object-validation.js";
import { projectObject } from "../src/validation/object-schemas.js";

type Path = "json" | "protobuf";
type Mode = "list" | "watch";
interface Sample {
  path: Path;
  mode: Mode;
  coldMs: number;
  coldCpuMs: number;
  warmMs: number;
  warmCpuMs: number;
  gcMs: number;
  allocMB: number;
  retainedMB: number;
  bodyMB: number;
}

const CHUNK = 64 * 1024;
// Run from its build, bench/dist/.
const testdata = new URL("../../src/kube/testdata/", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, testdata));

// What a running pod carries beyond the fixtures (written without a kubelet or admission): a
// service account volume, resources, mounts and probes per container, conditions and container
// statuses. With `--rich`, JSON pods get them as they are; protobuf pods get fields of the same
// numbers and about the size protobuf gives them (0.6 of the JSON), unknown to proto/ and so
// skipped by length as the real ones are.
const TIME = "2026-12-01T22:59:08Z";
const probe = {
  httpGet: { path: "/ready", port: 4191, scheme: "HTTP" },
  initialDelaySeconds: 2,
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};
const RICH = {
  // PodSpec field numbers.
  spec: {
    volumes: [
      1,
      [
        {
          name: "kube-api-access-x7k2p",
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              {
                configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] },
              },
              {
                downwardAPI: {
                  items: [
                    {
                      path: "namespace",
                      fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    ],
  },
  // Container field numbers.
  container: {
    resources: [
      8,
      { limits: { cpu: "1", memory: "250Mi" }, requests: { cpu: "100m", memory: "20Mi" } },
    ],
    volumeMounts: [
      9,
      [
        {
          name: "kube-api-access-x7k2p",
          readOnly: true,
          mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
        },
      ],
    ],
    livenessProbe: [10, { ...probe, httpGet: { ...probe.httpGet, path: "/live" } }],
    readinessProbe: [11, probe],
    securityContext: [
      15,
      {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsUser: 2102,
        capabilities: { drop: ["ALL"] },
      },
    ],
  },
  // PodStatus field numbers.
  status: {
    conditions: [
      2,
      ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map(
        (type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: TIME }),
      ),
    ],
    startTime: [7, TIME],
    containerStatuses: [
      8,
      [
        {
          name: "app",
          state: { running: { startedAt: TIME } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: "docker.io/library/app:1.2.3",
          imageID:
            "docker.io/library/app@sha256:0f2c9b6b1d6b4c7a6e5d4c3b2a19080706050403020100ffeeddccbbaa998877",
          containerID:
            "containerd://4f2b9f0c8d7e6a5b4c3d2e1f00112233445566778899aabbccddeeff00112233",
          started: true,
        },
      ],
    ],
    qosClass: [9, "Burstable"],
  },
} as const;

type Extras = Record<string, readonly [number, unknown]>;

function addJson(into: Record<string, unknown> | undefined, extras: Extras): void {
  if (into) for (const [key, [, value]] of Object.entries(extras)) into[key] = value;
}

function addUnknown(into: { $unknown?: UnknownField[] } | undefined, extras: Extras): void {
  if (!into) return;
  into.$unknown ??= [];
  const unknown = into.$unknown;
  for (const [no, value] of Object.values(extras)) {
    for (const element of Array.isArray(value) ? value : [value]) {
      const size = Math.round(Buffer.byteLength(JSON.stringify(element)) * 0.6);
      const data = new BinaryWriter().bytes(new Uint8Array(size)).finish();
      unknown.push({ no, wireType: WireType.LengthDelimited, data });
    }
  }
}

/** The six pods of the fixtures (a real API server's bytes), copied to `n` with new names. */
function bodies(n: number, rich: boolean) {
  const json = JSON.parse(read("pods.json").toString("utf8")) as { items: KubeObject[] };
  const encoded = fromBinary(EncodedListSchema, unwrapEnvelope(read("pods.pb")));
  const jsonItems: KubeObject[] = [];
  const pbItems: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % json.items.length;
    const source = json.items[k] as KubeObject;
    const name = `${source.metadata.name}-${i}`;
    const uid = `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`;
    const copy = structuredClone({ ...source, metadata: { ...source.metadata, name, uid } }) as Pod;
    // Unknown fields are kept and written back: the copy has all the bytes of the original.
    const pod = fromBinary(PodSchema, encoded.items[k] as Uint8Array);
    if (pod.metadata) Object.assign(pod.metadata, { name, uid });
    if (rich) {
      addJson(copy.spec as Record<string, unknown>, RICH.spec);
      addJson(copy.status as Record<string, unknown>, RICH.status);
      for (const c of [...(copy.spec?.containers ?? []), ...(copy.spec?.initContainers ?? [])]) {
        addJson(c as Record<string, unknown>, RICH.container);
      }
      addUnknown(pod.spec, RICH.spec);
      addUnknown(pod.status, RICH.status);
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        addUnknown(c, RICH.container);
      }
    }
    jsonItems.push(copy);
    pbItems.push(toBinary(PodSchema, pod));
  }
  const rv = { resourceVersion: "1" };
  const jsonList = Buffer.from(
    JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: rv, items: jsonItems }),
  );
  const list = toBinary(
    EncodedListSchema,
    create(EncodedListSchema, { metadata: rv, items: pbItems }),
  );
  const pbList = embed(list, "PodList");
  const jsonEvents = jsonItems.map((object) =>
    Buffer.from(
      `${JSON.stringify({ type: "MODIFIED", object: { kind: "Pod", apiVersion: "v1", ...object } })}\n`,
    ),
  );
  const pbEvents = pbItems.map((raw) => {
    const event = toBinary(
      WatchEventSchema,
      create(WatchEventSchema, { type: "MODIFIED", object: { raw: embed(raw, "Pod") } }),
    );
    const length = Buffer.alloc(4);
    length.writeUInt32BE(event.length);
    return Buffer.concat([length, event]);
  });
  return { jsonList, pbList, jsonEvents, pbEvents };
}

function embed(raw: Uint8Array, kind: string): Buffer {
  const unknown = create(UnknownSchema, { typeMeta: { apiVersion: "v1", kind }, raw });
  return Buffer.concat([PROTOBUF_MAGIC, toBinary(UnknownSchema, unknown)]);
}

function chunks(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += CHUNK) out.push(body.subarray(at, at + CHUNK));
  return out;
}

// As the reflector does: JSON items get their type and the projection and the full check;
// protobuf items come projected and get the check of what the wire leaves open.
function keepJson(obj: KubeObject): KubeObject {
  const pod = projectObject({ ...obj, apiVersion: "v1", kind: "Pod" });
  if (objectProblem("Pod", pod) !== undefined) throw new Error("invalid pod");
  return pod;
}

function keepTyped(obj: KubeObject): KubeObject {
  if (typedObjectProblem("Pod", obj) !== undefined) throw new Error("invalid pod");
  return obj;
}

function listJson(body: Buffer[]): KubeObject[] {
  const reader = new ListItems();
  const items: KubeObject[] = [];
  for (const chunk of body)
    for (const item of reader.push(chunk)) items.push(keepJson(item as KubeObject));
  reader.end();
  return items;
}

function listProtobuf(body: Buffer[]): KubeObject[] {
  const reader = new ProtobufListItems(readPod);
  const items: KubeObject[] = [];
  for (const chunk of body)
    for (const item of reader.push(chunk)) items.push(keepTyped(item as KubeObject));
  reader.end();
  return items;
}

function watchJson(events: Buffer[]): KubeObject[] {
  const lines = new NdjsonLines();
  const out: KubeObject[] = [];
  for (const chunk of events) {
    for (const line of lines.push(chunk)) {
      const event = parseWatchEvent(line);
      if (event.type === "MODIFIED") out.push(keepJson(event.object));
    }
  }
  return out;
}

function watchProtobuf(events: Buffer[]): KubeObject[] {
  const frames = new ProtobufWatchFrames();
  const out: KubeObject[] = [];
  for (const chunk of events) {
    for (const frame of frames.push(chunk)) {
      const event = readProtobufWatchEvent(frame, readPod);
      if (event.type === "MODIFIED") out.push(keepTyped(event.object));
    }
  }
  return out;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const tick = () => new Promise((resolve) => setImmediate(resolve));
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * One process, one path: the first pass (cold, as a start pays it) and warm passes, in wall and
 * process CPU time (the machine is shared: CPU time is the steadier one); the GC time and the
 * heap its objects keep. With `allocations`, one pass under V8's sampling heap profiler,
 * collected objects included: what the pass allocated (timing is not read from that process).
 */
async function measure(
  path: Path,
  mode: Mode,
  n: number,
  passes: number,
  allocations: boolean,
  rich: boolean,
): Promise<Sample> {
  const b = bodies(n, rich);
  const input =
    mode === "list"
      ? chunks(path === "json" ? b.jsonList : b.pbList)
      : path === "json"
        ? b.jsonEvents
        : b.pbEvents;
  const bodyMB = input.reduce((sum, c) => sum + c.length, 0) / 2 ** 20;
  const run =
    mode === "list"
      ? path === "json"
        ? listJson
        : listProtobuf
      : path === "json"
        ? watchJson
        : watchProtobuf;
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  const wall: number[] = [];
  const cpu: number[] = [];
  const sample = { path, mode, bodyMB, gcMs: 0, allocMB: Number.NaN, retainedMB: 0 };
  for (let pass = 0; pass < passes; pass++) {
    gc();
    await tick();
    const before = process.memoryUsage().heapUsed;
    const gcMsBefore = gcMs;
    if (allocations) await startSampling();
    const [start, startCpu] = [performance.now(), cpuMs()];
    const kept = run(input);
    wall.push(performance.now() - start);
    cpu.push(cpuMs() - startCpu);
    if (allocations) sample.allocMB = (await sampledBytes()) / 2 ** 20;
    if (kept.length !== n) throw new Error(`read ${kept.length} pods of ${n}`);
    await tick();
    if (pass === 0) {
      sample.gcMs = gcMs - gcMsBefore;
      gc();
      sample.retainedMB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    }
  }
  observer.disconnect();
  const warm = (values: number[]) => median(values.slice(1));
  return {
    ...sample,
    coldMs: wall[0] ?? 0,
    coldCpuMs: cpu[0] ?? 0,
    warmMs: warm(wall),
    warmCpuMs: warm(cpu),
  };
}

const session = new Session();

async function startSampling(): Promise<void> {
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}

async function sampledBytes(): Promise<number> {
  const { profile } = await session.post("HeapProfiler.getSamplingProfile");
  await session.post("HeapProfiler.stopSampling");
  let total = 0;
  const walk = (node: { selfSize: number; children: unknown[] }) => {
    total += node.selfSize;
    for (const child of node.children) walk(child as typeof node);
  };
  walk(profile.head);
  return total;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const rich = process.argv.includes("--rich");
const [arg1, arg2, arg3, arg4, arg5] = process.argv.slice(2).filter((a) => a !== "--rich");
if (arg1 === "--child") {
  const passes = Number(arg5);
  const sample = await measure(
    arg2 as Path,
    arg3 as Mode,
    Number(arg4),
    passes || 1,
    passes === 0,
    rich,
  );
  process.stdout.write(JSON.stringify(sample));
} else {
  const n = Number(arg1 ?? 10_000);
  const runs = Number(arg2 ?? 5);
  const script = fileURLToPath(import.meta.url);
  const child = (path: Path, mode: Mode, flags: string[], passes: number) =>
    JSON.parse(
      execFileSync(process.execPath, [
        ...flags,
        script,
        "--child",
        path,
        mode,
        String(n),
        String(passes),
        ...(rich ? ["--rich"] : []),
      ]).toString(),
    ) as Sample;
  const samples: Sample[] = [];
  for (let r = 0; r < runs; r++) {
    for (const mode of ["list", "watch"] as const) {
      for (const path of (r % 2 === 0 ? ["json", "protobuf"] : ["protobuf", "json"]) as Path[]) {
        const timed = child(path, mode, ["--expose-gc"], 6);
        samples.push({ ...timed, allocMB: child(path, mode, ["--expose-gc"], 0).allocMB });
      }
    }
  }
  console.log(
    `${n} ${rich ? "rich" : "fixture"} pods, ${runs} processes per path and measure, medians; load ${os.loadavg()[0]?.toFixed(1)}`,
  );
  console.log(
    "mode  path     body MB | cold wall ms  cold CPU ms  GC ms | warm wall ms  warm CPU ms | allocated MB  kept MB",
  );
  for (const mode of ["list", "watch"] as const) {
    for (const path of ["json", "protobuf"] as const) {
      const mine = samples.filter((s) => s.path === path && s.mode === mode);
      const m = (f: (s: Sample) => number) => median(mine.map(f)).toFixed(1).padStart(8);
      console.log(
        `${mode.padEnd(5)} ${path.padEnd(8)} ${m((s) => s.bodyMB)} | ${m((s) => s.coldMs)} ${m((s) => s.coldCpuMs)} ${m((s) => s.gcMs)} | ${m((s) => s.warmMs)} ${m((s) => s.warmCpuMs)} | ${m((s) => s.allocMB)} ${m((s) => s.retainedMB)}`,
      );
    }
  }
}
