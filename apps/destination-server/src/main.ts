// The `destination-server` binary: flags → server → signals. Every startup failure is one line
// on stderr and a non-zero exit.

import { FlagError, formatUsage, HelpRequested } from "@destination/go-compat";
import { ConfigError, parseCommandLine } from "./config/flag-options.js";
import { SERVER_FLAGS } from "./config/server-flags.js";
import type { RunningDestinationServer } from "./destination-server.js";
import { createServerLogger } from "./logging/server-logger.js";
import { VERSION } from "./version.js";

const PROGRAM = "destination-server";
/** The exit code after an invariant failure (EX_SOFTWARE). */
const INVARIANT_FAILURE_EXIT_CODE = 70;

function exitWith(code: number, line: string): never {
  process.stderr.write(`${PROGRAM}: ${line}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let commandLine: ReturnType<typeof parseCommandLine>;
  try {
    commandLine = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(formatUsage(PROGRAM, SERVER_FLAGS));
      process.exit(0);
    }
    if (err instanceof FlagError || err instanceof ConfigError) exitWith(2, err.message);
    throw err;
  }
  if (commandLine.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const logger = createServerLogger({ level: commandLine.logLevel, format: commandLine.logFormat });
  // Which node and flags: what an operator checks first when memory or CPU looks off.
  logger.info("starting", {
    version: VERSION,
    node: process.version,
    nodeFlags: process.execArgv.join(" "),
  });
  const options = await commandLine.options(logger);

  let server: RunningDestinationServer | undefined;
  let stopping = false;
  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    // A bounded shutdown: whatever is still open after the grace period is dropped.
    const deadline = setTimeout(() => process.exit(exitCode), options.shutdownTimeoutMs + 2000);
    deadline.unref();
    // Before the server is up there is nothing to close: exit at once.
    Promise.resolve(server?.close()).then(
      () => process.exit(exitCode),
      (err: unknown) => {
        logger.error("shutdown failed", { error: err });
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string) => {
    if (stopping) return;
    logger.info("shutting down", { signal });
    stop(0);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));

  // Bad input is refused where it enters (requests, tokens, manifests, API objects), so an
  // exception that reaches the top is a bug, and the watchers' state may be half updated. Ending
  // every stream lets proxies reconnect to another replica; the non-zero exit makes Kubernetes
  // restart this one instead of leaving it ready and wrong.
  const invariantFailed = (what: string, err: unknown) => {
    logger.error(`invariant failure (${what}); ending open streams and exiting`, { error: err });
    stop(INVARIANT_FAILURE_EXIT_CODE);
  };
  process.on("uncaughtException", (err) => invariantFailed("uncaught exception", err));
  process.on("unhandledRejection", (err) => invariantFailed("unhandled rejection", err));
  installTestFailureTrigger();

  try {
    // Loaded only now: the cluster client is slow to import and flag handling never needs it.
    const { startDestinationServer } = await import("./destination-server.js");
    server = await startDestinationServer(options);
  } catch (err) {
    exitWith(1, err instanceof Error ? err.message : String(err));
  }
}

/**
 * Tests only (`NODE_ENV=test`): with `DESTINATION_TEST_FAILURE=exception` or `rejection`, a
 * SIGUSR2 makes the process fail the way a bug would, from a timer, so the exit path can be
 * tested on the real binary.
 */
function installTestFailureTrigger(): void {
  const failure = process.env.DESTINATION_TEST_FAILURE;
  if (process.env.NODE_ENV !== "test" || failure === undefined) return;
  process.on("SIGUSR2", () => {
    setTimeout(() => {
      const err = new Error("deliberate invariant failure for a test");
      if (failure === "rejection") void Promise.reject(err);
      else throw err;
    }, 0);
  });
}

main().catch((err: unknown) => exitWith(1, err instanceof Error ? err.message : String(err)));
