import { Counter, Histogram, type Registry } from "prom-client";
import { Status, type StatusCode } from "../transport/status-code.js";

// go-grpc-prometheus names and labels, as upstream. Series appear on a method's first call, as
// upstream's do: its pre-initialisation runs before the Destination service is registered.
const LABELS = ["grpc_type", "grpc_service", "grpc_method"] as const;

/** grpc-go's names of the status codes, as the `grpc_code` label spells them. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  [Status.OK]: "OK",
  [Status.CANCELLED]: "Canceled",
  [Status.UNKNOWN]: "Unknown",
  [Status.INVALID_ARGUMENT]: "InvalidArgument",
  [Status.DEADLINE_EXCEEDED]: "DeadlineExceeded",
  [Status.NOT_FOUND]: "NotFound",
  [Status.ALREADY_EXISTS]: "AlreadyExists",
  [Status.PERMISSION_DENIED]: "PermissionDenied",
  [Status.RESOURCE_EXHAUSTED]: "ResourceExhausted",
  [Status.FAILED_PRECONDITION]: "FailedPrecondition",
  [Status.ABORTED]: "Aborted",
  [Status.OUT_OF_RANGE]: "OutOfRange",
  [Status.UNIMPLEMENTED]: "Unimplemented",
  [Status.INTERNAL]: "Internal",
  [Status.UNAVAILABLE]: "Unavailable",
  [Status.DATA_LOSS]: "DataLoss",
  [Status.UNAUTHENTICATED]: "Unauthenticated",
};

type Labels = Record<(typeof LABELS)[number], string>;

/**
 * The started and sent counts of one service and method, kept as plain numbers and added to the
 * counters when they are read: prom-client hashes and checks a label object on every increment,
 * several per Get, which showed in profiles of cold Gets.
 */
interface MethodCounts {
  readonly labels: Labels;
  started: number;
  sent: number;
}

/** One server-streaming call as the metrics see it. */
export interface CallMetrics {
  sent(): void;
  handled(code: StatusCode): void;
}

export class GrpcServerMetrics {
  readonly #handled: Counter<(typeof LABELS)[number] | "grpc_code">;
  readonly #seconds: Histogram<(typeof LABELS)[number]>;
  /** By service, then method; in the order of their first call, as the series were. */
  readonly #counts = new Map<string, Map<string, MethodCounts>>();

  constructor(registry: Registry) {
    const registers = [registry];
    // These three are read through their registry only: their `collect` writes the counts.
    const counts = this.#counts;
    new Counter({
      name: "grpc_server_started_total",
      help: "Total number of RPCs started on the server.",
      labelNames: LABELS,
      registers,
      collect() {
        writeCounts(this, counts, (c) => c.started);
      },
    });
    this.#handled = new Counter({
      name: "grpc_server_handled_total",
      help: "Total number of RPCs completed on the server, regardless of success or failure.",
      labelNames: [...LABELS, "grpc_code"],
      registers,
    });
    new Counter({
      name: "grpc_server_msg_received_total",
      help: "Total number of RPC stream messages received on the server.",
      labelNames: LABELS,
      registers,
      // A server-streaming call receives its one request message: as many as started.
      collect() {
        writeCounts(this, counts, (c) => c.started);
      },
    });
    new Counter({
      name: "grpc_server_msg_sent_total",
      help: "Total number of gRPC stream messages sent by the server.",
      labelNames: LABELS,
      registers,
      collect() {
        writeCounts(this, counts, (c) => c.sent);
      },
    });
    this.#seconds = new Histogram({
      name: "grpc_server_handling_seconds",
      help: "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
      labelNames: LABELS,
      buckets: [0.1, 1, 300, 3600],
      registers,
    });
  }

  /** Counts a started server-streaming call (its one request message included). */
  start(service: string, method: string): CallMetrics {
    const counts = this.#countsOf(service, method);
    const labels = counts.labels;
    const startedAt = process.hrtime.bigint();
    counts.started++;
    let done = false;
    return {
      sent: () => {
        counts.sent++;
      },
      handled: (code) => {
        if (done) return;
        done = true;
        this.#handled.inc({ ...labels, grpc_code: CODE_NAMES[code] ?? "Unknown" });
        this.#seconds.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
      },
    };
  }

  #countsOf(service: string, method: string): MethodCounts {
    let byMethod = this.#counts.get(service);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#counts.set(service, byMethod);
    }
    let counts = byMethod.get(method);
    if (counts === undefined) {
      const labels = { grpc_type: "server_stream", grpc_service: service, grpc_method: method };
      counts = { labels, started: 0, sent: 0 };
      byMethod.set(method, counts);
    }
    return counts;
  }
}

/**
 * Sets a counter to the counts, from zero: a series appears with its first count, as it did when
 * every call incremented the counter, and holds the total since start.
 */
function writeCounts(
  counter: Counter<(typeof LABELS)[number]>,
  counts: Map<string, Map<string, MethodCounts>>,
  read: (c: MethodCounts) => number,
): void {
  counter.reset();
  for (const c of eachCount(counts)) {
    const n = read(c);
    if (n > 0) counter.inc(c.labels, n);
  }
}

function* eachCount(counts: Map<string, Map<string, MethodCounts>>): Iterable<MethodCounts> {
  for (const byMethod of counts.values()) yield* byMethod.values();
}
