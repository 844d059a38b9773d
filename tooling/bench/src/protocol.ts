/** Messages between the bench (parent) and its server children, over the Node IPC channel. */
import type { KubeObject } from "@destination/core";

export interface DatasetSpec {
  readonly services: number;
  readonly podsPerService: number;
}

export type WorkerRequest =
  | {
      readonly type: "start";
      readonly dataset: DatasetSpec;
      readonly streamQueueCapacity?: number;
      /** Runtime patches to measure a proposed change (experiments.ts). */
      readonly experiments?: readonly string[];
    }
  /** Fan-out: one new pod endpoint in a service's slice; `stampMs` is taken just before. */
  | { readonly type: "addEndpoint"; readonly service: number }
  /** Baseline: write the pre-encoded message (base64) to every open Get stream. */
  | { readonly type: "broadcast" }
  | { readonly type: "setMessage"; readonly base64: string }
  | { readonly type: "churn"; readonly churn: ChurnSpec }
  /** Every object the server's cluster holds now, for the convergence check. */
  | { readonly type: "objects" }
  /** Forced GC, then memory and CPU; with `heapSnapshot`, also a heap snapshot to that path. */
  | { readonly type: "stats"; readonly heapSnapshot?: string }
  | { readonly type: "resetCounters" }
  /** CPU time used by the child so far (no GC, unlike `stats`). */
  | { readonly type: "cpu" }
  /** Starts a CPU profile of this child (inspector); `profileStop` writes it to `path`. */
  | { readonly type: "profileStart" }
  | { readonly type: "profileStop"; readonly path: string }
  | { readonly type: "exit" };

export interface ChurnSpec {
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** Dataset indexes of the services whose pods and slices churn. */
  readonly services: readonly number[];
}

/** How the server encoded what it wrote to its streams (counted at the response serializers). */
export interface EncodeCounters {
  /** Messages written to streams. */
  readonly writes: number;
  /** Distinct buffers among them: the number of encodes (as many as writes if every stream encoded its own). */
  readonly distinctBuffers: number;
}

export interface WorkerStats {
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  readonly encodes: EncodeCounters;
  readonly heapSnapshot?: string;
}

export interface ChurnResult {
  /**
   * `[seq, stampMs]` of every event that should reach subscribers: the slice update, or for a
   * slice written before its pod, the pod's arrival.
   */
  readonly stamps: readonly (readonly [number, number])[];
  /** The seqs whose slice named the pod before the pod existed. */
  readonly late: readonly number[];
  readonly events: number;
  readonly wallMs: number;
  readonly cpuUserUs: number;
  readonly cpuSystemUs: number;
  /** Event-loop delay of the server process during the churn (p99, max), ms. */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

export type WorkerReply =
  | {
      readonly type: "started";
      readonly grpcPort: number;
      readonly adminPort: number;
      /** Monotonic ms just before the server started (objects already generated). */
      readonly startStampMs: number;
      /** Monotonic ms when startDestinationServer resolved (the gRPC port bound). */
      readonly readyStampMs: number;
      readonly generateMs: number;
      readonly objects: number;
    }
  /** `stampMs` just before the change, `doneMs` when its synchronous handling returned. */
  | { readonly type: "applied"; readonly stampMs: number; readonly doneMs: number }
  | {
      readonly type: "broadcasted";
      readonly stampMs: number;
      readonly doneMs: number;
      readonly streams: number;
    }
  | { readonly type: "ok" }
  | { readonly type: "cpu"; readonly cpuUs: number }
  | { readonly type: "churned"; readonly result: ChurnResult }
  | { readonly type: "objects"; readonly objects: readonly KubeObject[] }
  | { readonly type: "stats"; readonly stats: WorkerStats }
  | { readonly type: "error"; readonly message: string };

/** A request with its correlation id, and the reply to it. */
export interface Envelope<T> {
  readonly id: number;
  readonly body: T;
}
