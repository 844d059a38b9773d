/**
 * Commands run in a process group of their own, so that a timeout or the end of a test can end
 * everything they started (pnpm → sh → node, npm → node) by that one group id, and nothing else.
 * tooling/registry-e2e runs its processes with this too (the `./process-group` entry).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Output kept per command: enough to show why it failed. */
const KEPT_OUTPUT = 512 * 1024;

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface GroupProcess {
  readonly child: ChildProcess;
  readonly argv: readonly string[];
  /** stdout and stderr as they arrived, the newest KEPT_OUTPUT characters. */
  output(): string;
  stdout(): string;
  /** Resolves once the first process exited and its pipes closed. */
  readonly exited: Promise<Exit>;
  /**
   * Resolves with the first match of `pattern` in stdout (or in stdout and stderr, `in: "output"`);
   * rejects, with the output, at the deadline or the exit.
   */
  waitFor(
    pattern: RegExp,
    timeoutMs: number,
    where?: { in: "stdout" | "output" },
  ): Promise<RegExpExecArray>;
  /**
   * SIGTERM to the group, then SIGKILL to what is left after `graceMs`. Also ends what the first
   * process left running after it exited.
   */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function spawnInGroup(argv: readonly string[], options: SpawnOptions): GroupProcess {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("spawnInGroup: empty argv");
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let stdout = "";
  let done = false;
  // Waiters, told of every chunk and of the exit.
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const append = (chunk: Buffer, toStdout: boolean) => {
    const text = chunk.toString("utf8");
    output = (output + text).slice(-KEPT_OUTPUT);
    if (toStdout) stdout = (stdout + text).slice(-KEPT_OUTPUT);
    notify();
  };
  child.stdout?.on("data", (c: Buffer) => append(c, true));
  child.stderr?.on("data", (c: Buffer) => append(c, false));
  const exited = new Promise<Exit>((resolve) => {
    child.on("error", (err) => {
      output += `\n${err.message}\n`;
      done = true;
      resolve({ code: null, signal: null });
      notify();
    });
    child.on("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
      notify();
    });
  });
  return {
    child,
    argv,
    output: () => output,
    stdout: () => stdout,
    exited,
    waitFor(pattern, timeoutMs, where = { in: "stdout" }) {
      return new Promise((resolve, reject) => {
        const finish = (error?: Error, match?: RegExpExecArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match !== undefined) resolve(match);
          else reject(error);
        };
        const check = () => {
          const match = pattern.exec(where.in === "stdout" ? stdout : output);
          if (match !== null) finish(undefined, match);
          else if (done) {
            finish(
              new Error(`${describeArgv(argv)} exited before printing ${pattern}:\n${output}`),
            );
          }
        };
        const timer = setTimeout(() => {
          const error = `${describeArgv(argv)} printed no ${pattern} within ${timeoutMs} ms`;
          finish(new Error(`${error}:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 5000) {
      const pgid = child.pid;
      if (pgid === undefined) return;
      if (!signalGroup(pgid, "SIGTERM")) return;
      const deadline = Date.now() + graceMs;
      // The first process's exit where /proc is missing, the whole group where it is.
      while (Date.now() < deadline && (!done || groupMembers(pgid).length > 0)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      signalGroup(pgid, "SIGKILL");
    },
  };
}

export interface Completed extends Exit {
  readonly timedOut: boolean;
  readonly output: string;
  readonly stdout: string;
  readonly ms: number;
}

/** Runs argv to its end, or ends its group after timeoutMs (SIGTERM, then SIGKILL). */
export async function runToCompletion(
  argv: readonly string[],
  options: SpawnOptions & { readonly timeoutMs: number },
): Promise<Completed> {
  const started = performance.now();
  const proc = spawnInGroup(argv, options);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop();
  }, options.timeoutMs);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  // Whatever the command left running (a server it started) goes with it.
  await proc.stop();
  return {
    code,
    signal,
    timedOut,
    output: proc.output(),
    stdout: proc.stdout(),
    ms: performance.now() - started,
  };
}

/** argv as a shell line, for messages: words quoted only where needed. */
export function describeArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
}

/** False when the group has no process left. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface GroupMember {
  readonly pid: number;
  readonly cmdline: string;
}

/** The processes of a group, from /proc (Linux); empty where /proc is missing. */
export function groupMembers(pgid: number): GroupMember[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const members: GroupMember[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after "(comm)": state, ppid, pgrp, …; comm itself may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid || fields[0] === "Z") continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      members.push({ pid: Number(entry), cmdline });
    } catch {
      // The process ended while being read.
    }
  }
  return members;
}
