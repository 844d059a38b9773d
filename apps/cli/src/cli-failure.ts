import type { ExitCode } from "./exit-code.js";

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
