// The `destination-server` binary: flags → server → signals. Every startup failure is one line
// on stderr and a non-zero exit.
import { ConfigError, parseCommandLine } from "./config/flag-options.js";
import { FlagError, formatUsage, HelpRequested } from "./config/go-flags.js";
import { SERVER_FLAGS } from "./config/server-flags.js";
import type { RunningDestinationServer } from "./destination-server.js";
import { createServerLogger } from "./logging/server-logger.js";
import { VERSION } from "./version.js";

const PROGRAM = "destination-server";

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
  const options = await commandLine.options(logger);

  // Nothing a client sends may take the process down; log what slipped through instead.
  process.on("uncaughtException", (err) => logger.error("uncaught exception", { error: err }));
  process.on("unhandledRejection", (err) => logger.error("unhandled rejection", { error: err }));

  let server: RunningDestinationServer | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    // A bounded shutdown: whatever is still open after the grace period is dropped.
    const deadline = setTimeout(
      () => process.exit(0),
      (options.shutdownTimeoutMs ?? 10_000) + 2000,
    );
    deadline.unref();
    // Before the server is up there is nothing to close: exit at once.
    Promise.resolve(server?.close()).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error("shutdown failed", { error: err });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  try {
    // Loaded only now: the cluster client is slow to import and flag handling never needs it.
    const { startDestinationServer } = await import("./destination-server.js");
    server = await startDestinationServer(options);
  } catch (err) {
    exitWith(1, err instanceof Error ? err.message : String(err));
  }
}

main().catch((err: unknown) => exitWith(1, err instanceof Error ? err.message : String(err)));
