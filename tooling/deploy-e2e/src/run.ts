// A command run to completion with its output collected: what every tool call of the suite is.
import { spawn } from "node:child_process";

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** Written to the command's stdin (closed right after). */
  readonly input?: string;
  /** Added to this process's environment. */
  readonly env?: Record<string, string>;
  readonly cwd?: string;
}

/** Runs `command args`; never rejects on an exit status, only when it cannot start. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    // A command that exits before reading all of its input (a refused argument) is no error here.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}

/** Like `run`, but rejects with the command's stderr unless it exits 0; resolves to stdout. */
export async function output(command: string, args: string[], options?: RunOptions) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${result.code}:\n${result.stderr.trim().slice(-2000)}`,
    );
  }
  return result.stdout;
}
