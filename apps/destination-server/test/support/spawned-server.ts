import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const APP = fileURLToPath(new URL("../..", import.meta.url));
const BIN = `${APP}/bin/destination-server.js`;

/** Fails clearly when the binary has not been built (`turbo run test` builds it first). */
export function assertBuilt(): void {
  if (!existsSync(`${APP}/dist/main.js`)) {
    throw new Error(
      "apps/destination-server/dist is missing: run `pnpm turbo run build --filter=@destination/server...`",
    );
  }
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the binary to completion. */
export function runBinary(args: string[]): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly grpcPort: number;
  readonly adminPort: number;
  readonly exit: Promise<Exit>;
  /** Lines of stderr so far. */
  readonly logs: () => string;
  /** The JSON log records of stderr so far, parsed. */
  readonly records: () => LogRecord[];
}

/** One JSON log line of the server. */
export type LogRecord = { readonly level: string; readonly msg: string } & Record<string, unknown>;

/** The complete JSON lines of `stderr` (a line still arriving is left for later), parsed. */
function recordsOf(stderr: string): LogRecord[] {
  return stderr
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogRecord);
}

/**
 * Starts the binary with JSON logs and resolves once its "ready" line names the ports.
 * `nodeArgs` go to node before the script; `subcommand` is the binary's first argument; `env` is
 * added to this process's environment.
 */
export function spawnServer(
  args: string[],
  options: { nodeArgs?: string[]; subcommand?: string; env?: Record<string, string> } = {},
): Promise<SpawnedServer> {
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      BIN,
      ...(options.subcommand !== undefined ? [options.subcommand] : []),
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--log-format",
      "json",
      ...args,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...options.env } },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  const exit = new Promise<Exit>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (d) => {
      stderr += d;
      for (const record of recordsOf(stderr)) {
        const { grpcPort, adminPort } = record as { grpcPort?: number; adminPort?: number };
        if (record.msg === "ready" && grpcPort && adminPort) {
          resolve({
            child,
            grpcPort,
            adminPort,
            exit,
            logs: () => stderr,
            records: () => recordsOf(stderr),
          });
        }
      }
    });
    exit.then((e) => reject(new Error(`server exited early (${e.code}): ${e.stderr}`)));
  });
}
