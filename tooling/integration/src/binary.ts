// The destination-server binary (apps/destination-server/bin), as a deployment runs it.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const APP = fileURLToPath(new URL("../../../apps/destination-server", import.meta.url));
/** The binary's entry point, for a test that starts it its own way (in a network namespace). */
export const SERVER_BIN = `${APP}/bin/destination-server.js`;
const BIN = SERVER_BIN;

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly grpcPort: number;
  readonly adminPort: number;
  /** stderr so far (JSON log lines). */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts the binary with `args` (then loopback ports and JSON logs, which win over the same
 * flags in `args`, as with Go's flag package) and resolves once its "ready" line names the
 * ports; rejects with its output if it exits first. `hostname` is the pod name it runs as.
 */
export function spawnServer(
  args: readonly string[],
  options: { hostname?: string } = {},
): Promise<SpawnedServer> {
  if (!existsSync(`${APP}/dist/main.js`)) {
    throw new Error(
      "apps/destination-server/dist is missing: run `pnpm turbo run build --filter=@destination/integration...` (pnpm test:integration does)",
    );
  }
  const child = spawn(
    process.execPath,
    [
      BIN,
      ...args,
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
      "--log-format",
      "json",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // As in a pod: the ExternalWorkload controller's Lease identity (the binary requires it on
      // a cluster backend with slices, as upstream's does).
      env: {
        ...process.env,
        HOSTNAME: options.hostname ?? (process.env.HOSTNAME || "destination-server-test"),
      },
    },
  );
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr?.on("data", (d) => {
      stderr += d;
      for (const line of stderr.split("\n")) {
        if (!line.startsWith("{")) continue;
        let record: { msg?: string; grpcPort?: number; adminPort?: number };
        try {
          record = JSON.parse(line);
        } catch {
          continue;
        }
        if (record.msg === "ready" && record.grpcPort && record.adminPort) {
          resolve({
            child,
            grpcPort: record.grpcPort,
            adminPort: record.adminPort,
            logs: () => stderr,
            async stop() {
              if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
              await exited;
            },
          });
        }
      }
    });
    child.on("exit", (code, signal) =>
      reject(new Error(`destination-server exited (${signal ?? code}) before ready:\n${stderr}`)),
    );
  });
}
