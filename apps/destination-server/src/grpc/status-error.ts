import { Metadata, type StatusObject, type status } from "@grpc/grpc-js";

/** A gRPC status a handler ends its call with (codes and messages: README "Errors"). */
export class StatusError extends Error {
  override readonly name = "StatusError";
  constructor(
    readonly code: status,
    readonly details: string,
  ) {
    super(details);
  }

  /** The object grpc-js sends as the call's status. */
  toStatus(): StatusObject {
    return { code: this.code, details: this.details, metadata: new Metadata() };
  }
}
