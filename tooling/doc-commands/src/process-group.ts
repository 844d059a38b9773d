/**
 * Commands run in a process group of their own, so that a timeout can end everything they
 * started (pnpm → sh → node) by that one group id, and nothing else.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Output kept per command: enough to show why it failed. */
const KEPT_OUTPUT = 256 * 1024;

export interface GroupProcess {
  readonly child: ChildProcess;
  /** stdout and stderr as they arrived, the newest KEPT_OUTPUT characters. */
  output(): string;
  stdout(): string;
  /** Resolves once the first process exited and its pipes closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Calls `listener` on every chunk of output (and now, with what arrived so far). */
  onOutput(listener: () => void): () => void;
}

export function spawnInGroup(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): GroupProcess {
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
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer, toStdout: boolean) => {
    const text = chunk.toString("utf8");
    output = (output + text).slice(-KEPT_OUTPUT);
    if (toStdout) stdout = (stdout + text).slice(-KEPT_OUTPUT);
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", (c: Buffer) => append(c, true));
  child.stderr?.on("data", (c: Buffer) => append(c, false));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", (err) => {
      output += `\n${err.message}\n`;
      resolve({ code: null, signal: null });
    });
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    exited,
    onOutput(listener) {
      listeners.add(listener);
      listener();
      return () => listeners.delete(listener);
    },
  };
}

export interface Completed {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly output: string;
  readonly stdout: string;
  readonly ms: number;
}

/** Runs argv to its end, or ends its group after timeoutMs (SIGTERM, then SIGKILL). */
export async function runToCompletion(
  argv: readonly string[],
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<Completed> {
  const started = performance.now();
  const proc = spawnInGroup(argv, options);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void endGroup(proc);
  }, options.timeoutMs);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  // Whatever the command left running (a server it started) goes with it.
  await endGroup(proc);
  return {
    code,
    signal,
    timedOut,
    output: proc.output(),
    stdout: proc.stdout(),
    ms: performance.now() - started,
  };
}

/** SIGTERM to the group, SIGKILL to what is left after a grace period. */
export async function endGroup(proc: GroupProcess, graceMs = 5000): Promise<void> {
  const pgid = proc.child.pid;
  if (pgid === undefined) return;
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && groupMembers(pgid).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  signalGroup(pgid, "SIGKILL");
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
