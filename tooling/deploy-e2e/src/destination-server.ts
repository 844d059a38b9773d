// The destination-server binary (apps/destination-server/bin), started the way the chart's
// container starts it: the container's args, then loopback ports, JSON logs and a kubeconfig
// (later flags win, as with Go's flag package), and HOSTNAME set as a pod has it (the
// ExternalWorkload controller's Lease names the replica by it).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const APP = fileURLToPath(new URL("../../../apps/destination-server/", import.meta.url));

export interface RunningServer {
  readonly grpcPort: number;
  readonly adminPort: number;
  /** stderr so far (JSON log lines). */
  logs(): string;
  stop(): Promise<void>;
}

/** Resolves once the server logs `ready`; rejects with its output if it exits first. */
export function startDestinationServer(
  containerArgs: readonly string[],
  kubeconfigPath: string,
  podName: string,
): Promise<RunningServer> {
  if (!existsSync(`${APP}dist/main.js`)) {
    throw new Error(
      "apps/destination-server/dist is missing: run `pnpm turbo run build --filter=@destination/deploy-e2e...` (pnpm test:deploy does)",
    );
  }
  const child: ChildProcess = spawn(
    process.execPath,
    [
      `${APP}bin/destination-server.js`,
      ...containerArgs,
      "-addr=127.0.0.1:0",
      "-metrics-addr=127.0.0.1:0",
      "-log-format=json",
      `-kubeconfig=${kubeconfigPath}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, HOSTNAME: podName } },
  );
  let stderr = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
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
