import { status as Status } from "@grpc/grpc-js";
import { Counter, Histogram, type Registry } from "prom-client";
import type { StatusCode } from "../grpc/status-error.js";

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

/** prom-client's bound series of one method, looked up once per method rather than per call. */
interface MethodSeries {
  readonly labels: Record<LabelName, string>;
  readonly started: Counter.Internal;
  readonly received: Counter.Internal;
  readonly sent: Counter.Internal;
  readonly seconds: Histogram.Internal<LabelName>;
}

export class GrpcServerMetrics {
  readonly #started: Counter<LabelName>;
  readonly #handled: Counter<LabelName | "grpc_code">;
  readonly #received: Counter<LabelName>;
  readonly #sent: Counter<LabelName>;
  readonly #seconds: Histogram<LabelName>;
  readonly #methods = new Map<string, MethodSeries>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.#started = new Counter({
      name: "grpc_server_started_total",
      help: "Total number of RPCs started on the server.",
      labelNames: LABELS,
      registers,
    });
    this.#handled = new Counter({
      name: "grpc_server_handled_total",
      help: "Total number of RPCs completed on the server, regardless of success or failure.",
      labelNames: [...LABELS, "grpc_code"],
      registers,
    });
    this.#received = new Counter({
      name: "grpc_server_msg_received_total",
      help: "Total number of RPC stream messages received on the server.",
      labelNames: LABELS,
      registers,
    });
    this.#sent = new Counter({
      name: "grpc_server_msg_sent_total",
      help: "Total number of gRPC stream messages sent by the server.",
      labelNames: LABELS,
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
      series = {
        labels,
        started: this.#started.labels(labels),
        received: this.#received.labels(labels),
        sent: this.#sent.labels(labels),
        seconds: this.#seconds.labels(labels),
      };
      this.#methods.set(key, series);
    }
    return series;
  }
}
