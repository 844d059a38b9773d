// How a watched stream's end becomes the process's exit code and last words.
import type { CliIo } from "../cli-io.js";
import { ExitCode } from "../exit-code.js";
import type { StreamEnd } from "../grpc/destination-connection.js";

export const SERVER_CLOSED_NOTE =
  "the server ended the stream with status OK (it does so when a client falls behind, " +
  "or when it shuts down); run the command again to resubscribe";

export function exitCodeForEnd(
  end: StreamEnd,
  interrupted: boolean,
  io: Pick<CliIo, "stderr">,
): ExitCode {
  if (interrupted) return ExitCode.interrupted;
  switch (end.kind) {
    case "cancelled":
      return ExitCode.ok;
    case "closed-by-server":
      io.stderr.write(`dst: ${SERVER_CLOSED_NOTE}\n`);
      return ExitCode.ok;
    case "failed":
      io.stderr.write(`dst: ${end.failure.message}\n`);
      return end.failure.exitCode;
  }
}
