import type { status } from "@grpc/grpc-js";

/** A gRPC status code, as grpc-js numbers them (the protocol's numbers). */
export type StatusCode = status;

/** A gRPC status a call ends with (the Destination handlers' codes and messages: README "Errors"). */
export class StatusError extends Error {
  override readonly name = "StatusError";
  constructor(
    readonly code: StatusCode,
    readonly details: string,
  ) {
    super(details);
  }
}
