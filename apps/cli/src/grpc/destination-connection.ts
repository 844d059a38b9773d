// One channel to the server and the streams opened on it: the first-message deadline,
// cancellation, and how each stream ended.
import {
  create,
  type DestinationProfile,
  GetDestinationSchema,
  type Update,
} from "@destination/proto";
import { DestinationClient } from "@destination/proto/client";
import * as grpc from "@grpc/grpc-js";
import { status as GrpcStatus, type StatusObject } from "@grpc/grpc-js";
import { formatDurationMs } from "../duration.js";
import { CliFailure, ExitCode } from "../exit-code.js";

export type StreamEnd =
  /** The server closed the stream with OK (it does so when a client falls behind). */
  | { readonly kind: "closed-by-server" }
  /** `cancel()` was called. */
  | { readonly kind: "cancelled" }
  | { readonly kind: "failed"; readonly failure: CliFailure };

export interface StreamListener<Message> {
  onMessage(message: Message): void;
  /** The channel is connected but nothing arrived within the timeout (a silent stream). */
  onQuiet(): void;
}

export interface DestinationStream {
  /** Settles once, however the stream ends; never rejects. */
  readonly ended: Promise<StreamEnd>;
  /** Cancels the call; `ended` then settles with "cancelled". Idempotent. */
  cancel(): void;
}

/** What each streaming method sends. */
export interface MethodMessages {
  get: Update;
  getProfile: DestinationProfile;
}

export class DestinationConnection {
  private readonly client: DestinationClient;

  constructor(
    readonly addr: string,
    private readonly timeoutMs: number,
  ) {
    this.client = new DestinationClient(addr, grpc.credentials.createInsecure());
  }

  open<Method extends keyof MethodMessages>(
    method: Method,
    authority: string,
    contextToken: string,
    listener: StreamListener<MethodMessages[Method]>,
  ): DestinationStream {
    const request = create(GetDestinationSchema, { scheme: "k8s", path: authority, contextToken });
    const call: grpc.ClientReadableStream<MethodMessages[Method]> =
      method === "get"
        ? (this.client.get(request) as grpc.ClientReadableStream<MethodMessages[Method]>)
        : (this.client.getProfile(request) as grpc.ClientReadableStream<MethodMessages[Method]>);

    let receivedAny = false;
    // Why we cancelled, if we did: the operator asked, or the channel never connected.
    let cancelReason: StreamEnd | undefined;
    let settle: (end: StreamEnd) => void = () => {};
    const ended = new Promise<StreamEnd>((resolve) => {
      settle = resolve;
    });

    const quietTimer = setTimeout(() => {
      if (receivedAny || cancelReason !== undefined) return;
      const state = this.client.getChannel().getConnectivityState(false);
      if (state === grpc.connectivityState.READY) {
        listener.onQuiet();
        return;
      }
      cancelReason = {
        kind: "failed",
        failure: new CliFailure(
          `cannot reach the destination server at ${this.addr} within ${formatDurationMs(this.timeoutMs)}`,
          ExitCode.unreachable,
        ),
      };
      call.cancel();
    }, this.timeoutMs);

    call.on("data", (message: MethodMessages[Method]) => {
      if (cancelReason !== undefined) return;
      receivedAny = true;
      listener.onMessage(message);
    });
    // The status carries everything; this listener only keeps the error from being thrown.
    call.on("error", () => {});
    call.on("status", (status: grpc.StatusObject) => {
      clearTimeout(quietTimer);
      const end: StreamEnd =
        cancelReason ??
        (status.code === grpc.status.OK
          ? { kind: "closed-by-server" }
          : { kind: "failed", failure: failureFromStatus(status, this.addr, receivedAny) });
      // grpc-js ends the readable side before reporting the status; wait until every message
      // already received has been delivered.
      if (call.readableEnded) settle(end);
      else call.once("end", () => settle(end));
    });

    return {
      ended,
      cancel() {
        if (cancelReason !== undefined) return;
        cancelReason = { kind: "cancelled" };
        call.cancel();
      },
    };
  }

  close(): void {
    this.client.close();
  }
}

// A gRPC status that ended a stream badly → what the operator reads and the exit code.
/** grpc-js wraps the socket error in boilerplate; keep the part that says what happened. */
export function connectionErrorText(details: string): string {
  const cause = /Last error: (?:Error: )?(.*?)(?:\.? Resolution note:.*)?$/s.exec(details)?.[1];
  return cause === undefined || cause === "" ? details : cause;
}

export function failureFromStatus(
  status: Pick<StatusObject, "code" | "details">,
  addr: string,
  receivedAny: boolean,
): CliFailure {
  const codeName = GrpcStatus[status.code] ?? `code ${status.code}`;
  switch (status.code) {
    case GrpcStatus.UNAVAILABLE:
      return new CliFailure(
        receivedAny
          ? `lost the connection to the destination server at ${addr}: ${connectionErrorText(status.details)}`
          : `cannot reach the destination server at ${addr}: ${connectionErrorText(status.details)}`,
        ExitCode.unreachable,
      );
    case GrpcStatus.NOT_FOUND:
      return new CliFailure(`${status.details} (${codeName})`, ExitCode.notFound);
    case GrpcStatus.INVALID_ARGUMENT:
      return new CliFailure(`${status.details} (${codeName})`, ExitCode.invalidArgument);
    default:
      return new CliFailure(`${status.details} (${codeName})`, ExitCode.failure);
  }
}
