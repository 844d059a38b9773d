// Exit codes of `dst`, shared by every command. Distinct per cause so scripts can branch on
// them; documented in `dst --help` and the README.

export const ExitCode = {
  /** Success, including a stream the server ended with status OK. */
  ok: 0,
  /** Any other gRPC error (the status code name is printed). */
  failure: 1,
  /** Bad command line; usage is printed. */
  usage: 2,
  /** The server could not be reached (or the connection was lost). */
  unreachable: 3,
  /** The server answered NOT_FOUND. */
  notFound: 4,
  /** The server answered INVALID_ARGUMENT (its message is printed). */
  invalidArgument: 5,
  /** `profile --once`: no profile arrived within --timeout. */
  timedOut: 6,
  /** Interrupted (Ctrl-C); the stream was cancelled. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error meant for the operator: `message` is printed after `dst: ` and the process exits
 * with `exitCode`. */
export class CliFailure extends Error {
  override readonly name = "CliFailure";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}
