// A gRPC status that ended a stream badly → what the operator reads and the exit code.
import { status as GrpcStatus, type StatusObject } from "@grpc/grpc-js";
import { CliFailure, ExitCode } from "../exit-code.js";

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
