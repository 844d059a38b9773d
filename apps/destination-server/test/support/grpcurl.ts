import { spawn } from "node:child_process";

export interface GrpcurlRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs grpcurl to completion. */
export function runGrpcurl(bin: string, args: string[]): Promise<GrpcurlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs a streaming call and resolves with the first message grpcurl prints, then stops it: the
 * server keeps a Get stream open, so grpcurl would never exit by itself.
 */
export function firstStreamedMessage(bin: string, args: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
      try {
        const message: unknown = JSON.parse(stdout);
        child.kill();
        resolve(message);
      } catch {
        // Not a whole message yet.
      }
    });
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) =>
      reject(new Error(`grpcurl exited ${code} before a message:\n${stdout}${stderr}`)),
    );
  });
}
