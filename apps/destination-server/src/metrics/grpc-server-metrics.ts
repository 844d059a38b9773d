import { status } from "@grpc/grpc-js";
import { Counter, Histogram, type Registry } from "prom-client";

// go-grpc-prometheus names and labels, as upstream. Series appear on a method's first call, as
// upstream's do: its pre-initialisation runs before the Destination service is registered.
const LABELS = ["grpc_type", "grpc_service", "grpc_method"] as const;

/** grpc-go's names of the status codes, as the `grpc_code` label spells them. */
const CODE_NAMES: Readonly<Record<number, string>> = {
  [status.OK]: "OK",
  [status.CANCELLED]: "Canceled",
  [status.UNKNOWN]: "Unknown",
  [status.INVALID_ARGUMENT]: "InvalidArgument",
  [status.DEADLINE_EXCEEDED]: "DeadlineExceeded",
  [status.NOT_FOUND]: "NotFound",
  [status.ALREADY_EXISTS]: "AlreadyExists",
  [status.PERMISSION_DENIED]: "PermissionDenied",
  [status.RESOURCE_EXHAUSTED]: "ResourceExhausted",
  [status.FAILED_PRECONDITION]: "FailedPrecondition",
  [status.ABORTED]: "Aborted",
  [status.OUT_OF_RANGE]: "OutOfRange",
  [status.UNIMPLEMENTED]: "Unimplemented",
  [status.INTERNAL]: "Internal",
  [status.UNAVAILABLE]: "Unavailable",
  [status.DATA_LOSS]: "DataLoss",
  [status.UNAUTHENTICATED]: "Unauthenticated",
};

/** One server-streaming call as the metrics see it. */
export interface CallMetrics {
  sent(): void;
  handled(code: status): void;
}

export class GrpcServerMetrics {
  readonly #started: Counter<(typeof LABELS)[number]>;
  readonly #handled: Counter<(typeof LABELS)[number] | "grpc_code">;
  readonly #received: Counter<(typeof LABELS)[number]>;
  readonly #sent: Counter<(typeof LABELS)[number]>;
  readonly #seconds: Histogram<(typeof LABELS)[number]>;

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

  /** Counts a started server-streaming call (its one request message included). */
  start(service: string, method: string): CallMetrics {
    const labels = { grpc_type: "server_stream", grpc_service: service, grpc_method: method };
    const startedAt = process.hrtime.bigint();
    this.#started.inc(labels);
    this.#received.inc(labels);
    let done = false;
    return {
      sent: () => this.#sent.inc(labels),
      handled: (code) => {
        if (done) return;
        done = true;
        this.#handled.inc({ ...labels, grpc_code: CODE_NAMES[code] ?? "Unknown" });
        this.#seconds.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
      },
    };
  }
}
