// Child processes of a test environment: each in its own process group, logging to a file, killed
// by group on stop, and killed by an 'exit' handler if the test process ends without stopping
// them. The binaries also watch their parent pid (see go/*/main.go) for the SIGKILL case.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isRunning(): boolean;
  /**
   * SIGTERM to the process group, then SIGKILL after `graceMs` (default 5s; 0 = SIGKILL at once);
   * resolves once it exited.
   */
  stop(graceMs?: number): Promise<void>;
}

const liveGroups = new Set<number>();
const liveDirs = new Set<string>();
let backstopInstalled = false;

function installBackstop(): void {
  if (backstopInstalled) return;
  backstopInstalled = true;
  process.on("exit", () => {
    for (const pgid of liveGroups) killGroup(pgid, "SIGKILL");
    for (const dir of liveDirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort while exiting
      }
    }
  });
}

/** Registers a temp dir for removal at process exit unless released first. */
export function trackDir(dir: string): () => void {
  installBackstop();
  liveDirs.add(dir);
  return () => liveDirs.delete(dir);
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface StartProcessOptions {
  logPath: string;
  env?: NodeJS.ProcessEnv;
  /** Also copy the output to this process's stderr. */
  verbose?: boolean;
}

export function startProcess(
  name: string,
  bin: string,
  args: string[],
  opts: StartProcessOptions,
): ManagedProcess {
  installBackstop();
  const fd = openSync(opts.logPath, "a");
  let child: ChildProcess;
  try {
    child = spawn(bin, args, {
      detached: true,
      env: opts.env ?? process.env,
      stdio: ["ignore", opts.verbose ? "inherit" : fd, opts.verbose ? "inherit" : fd],
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) {
    throw new Error(`k8s-env: could not start ${name} (${bin})`);
  }
  liveGroups.add(pid);
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      running = false;
      liveGroups.delete(pid);
      // Reap anything left in the group (the binaries do not fork, but be thorough).
      killGroup(pid, "SIGKILL");
      resolve({ code, signal });
    });
  });
  child.unref();
  return {
    name,
    pid,
    logPath: opts.logPath,
    exited,
    isRunning: () => running,
    async stop(graceMs = 5_000) {
      if (!running) {
        await exited;
        return;
      }
      // The child is unref'd; ref it so the event loop waits for its exit event.
      child.ref();
      killGroup(pid, graceMs <= 0 ? "SIGKILL" : "SIGTERM");
      const timer = setTimeout(() => killGroup(pid, "SIGKILL"), Math.max(graceMs, 0));
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(path: string, lines = 30): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/** Distinct free TCP ports on 127.0.0.1 (held together while choosing, so they differ). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((resolve, reject) => {
          const s = createServer();
          s.once("error", reject);
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const addr = s.address();
    if (addr === null || typeof addr === "string") throw new Error("k8s-env: no port");
    return addr.port;
  });
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}
