import type { StatusCode } from "./status-code.js";

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
