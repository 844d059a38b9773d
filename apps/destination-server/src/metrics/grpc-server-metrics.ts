import { status as Status } from "@grpc/grpc-js";
import { Counter, Histogram, type Registry } from "prom-client";
import type { StatusCode } from "../grpc/status-error.js";
import { BatchedSeries } from "./prom-metrics-registry.js";

// go-grpc-prometheus names and labels, as upstream. Series appear on a method's first call, as
// upstream's do: its pre-initialisation runs before the Destination service is registered.
const LABELS = ["grpc_type", "grpc_service", "grpc_method"] as const;
type LabelName = (typeof LABELS)[number];

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

/** One server-streaming call as the metrics see it. */
export interface CallMetrics {
  sent(): void;
  handled(code: StatusCode): void;
}

/**
 * The series of one method, looked up once per method rather than per call. Calls started and
 * messages received and sent are batched (`BatchedSeries`): in fan-out every message sent
 * counts. A series shows once something was counted in it, as upstream's do.
 */
class MethodSeries {
  readonly started: BatchedSeries;
  readonly received: BatchedSeries;
  readonly sent: BatchedSeries;
  readonly seconds: Histogram.Internal<LabelName>;

  constructor(
    readonly labels: Record<LabelName, string>,
    histogram: Histogram<LabelName>,
  ) {
    this.started = new BatchedSeries(labels);
    this.received = new BatchedSeries(labels);
    this.sent = new BatchedSeries(labels);
    this.seconds = histogram.labels(labels);
  }
}

type Batched = "started" | "received" | "sent";

export class GrpcServerMetrics {
  readonly #handled: Counter<LabelName | "grpc_code">;
  readonly #seconds: Histogram<LabelName>;
  readonly #methods = new Map<string, MethodSeries>();

  constructor(registry: Registry) {
    const registers = [registry];
    const methods = this.#methods;
    const batchedCounter = (batched: Batched, name: string, help: string) =>
      new Counter({
        name,
        help,
        labelNames: LABELS,
        registers,
        collect() {
          for (const series of methods.values()) series[batched].flushInto(this);
        },
      });
    // Kept by the registry; each hands its batched series over when scraped.
    batchedCounter(
      "started",
      "grpc_server_started_total",
      "Total number of RPCs started on the server.",
    );
    batchedCounter(
      "received",
      "grpc_server_msg_received_total",
      "Total number of RPC stream messages received on the server.",
    );
    batchedCounter(
      "sent",
      "grpc_server_msg_sent_total",
      "Total number of gRPC stream messages sent by the server.",
    );
    this.#handled = new Counter({
      name: "grpc_server_handled_total",
      help: "Total number of RPCs completed on the server, regardless of success or failure.",
      labelNames: [...LABELS, "grpc_code"],
      registers,
    });
    this.#seconds = new Histogram({
      name: "grpc_server_handling_seconds",
      help: "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
      labelNames: LABELS,
      buckets: [0.1, 1, 300, 3600],
      registers,
    });
  }

  /** Counts a started server-streaming call and its one request message. */
  start(service: string, method: string): CallMetrics {
    const series = this.#seriesOf(service, method);
    series.started.inc();
    series.received.inc();
    const startedAt = process.hrtime.bigint();
    let done = false;
    return {
      sent: () => series.sent.inc(),
      handled: (code) => {
        if (done) return;
        done = true;
        this.#handled.inc({ ...series.labels, grpc_code: CODE_NAMES[code] ?? "Unknown" });
        series.seconds.observe(Number(process.hrtime.bigint() - startedAt) / 1e9);
      },
    };
  }

  #seriesOf(service: string, method: string): MethodSeries {
    const key = `${service}/${method}`;
    let series = this.#methods.get(key);
    if (series === undefined) {
      const labels = { grpc_type: "server_stream", grpc_service: service, grpc_method: method };
      series = new MethodSeries(labels, this.#seconds);
      this.#methods.set(key, series);
    }
    return series;
  }
}
