// One run of `dst`: parse, dispatch, and turn every outcome into an exit code.

import packageJson from "../package.json" with { type: "json" };
import { type CliCommand, parseCommandLine, UsageError } from "./args/parse-command-line.js";
import type { CliIo } from "./cli-io.js";
import { CliFailure, ExitCode } from "./exit-code.js";

// Bundled into dist by tsup, so the binary does not read package.json at run time.
export const cliVersion: string = packageJson.version;

// Each command is imported when it runs: they bring gRPC and YAML, which neither `help`, a usage
// error nor an import of this package needs (README, "Import cost").
async function dispatch(command: CliCommand, io: CliIo): Promise<ExitCode> {
  switch (command.kind) {
    case "help":
      io.stdout.write(command.text);
      return ExitCode.ok;
    case "version":
      io.stdout.write(`dst ${cliVersion}\n`);
      return ExitCode.ok;
    case "get":
      return (await import("./commands/get-command.js")).runGet(command, io);
    case "profile":
      return (await import("./commands/profile-command.js")).runProfile(command, io);
    case "endpoints":
      return (await import("./commands/endpoints-command.js")).runEndpoints(command, io);
    case "diagnose":
      return (await import("./commands/diagnose-command.js")).runDiagnose(command, io);
    case "audit":
      return (await import("./commands/audit-command.js")).runAudit(command, io);
  }
}

/** Runs `dst` with `argv` (without the node and script paths) and resolves to its exit code;
 * never rejects. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  try {
    return await dispatch(parseCommandLine(argv), io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`dst: ${error.message}\n\n${error.usage}`);
      return error.exitCode;
    }
    if (error instanceof CliFailure) {
      io.stderr.write(`dst: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr.write(`dst: unexpected error: ${error instanceof Error ? error.stack : error}\n`);
    return ExitCode.failure;
  }
}
