// Child processes of the suite, each in a process group of its own: a timeout or the end of a test
// stops what it started (npm → node, pnpm → sh → turbo) by that group's id, and nothing else.
import { type ChildProcess, spawn } from "node:child_process";

/** Output kept per process: enough to show why something failed. */
const KEPT_OUTPUT = 512 * 1024;

export interface Started {
  readonly child: ChildProcess;
  readonly argv: readonly string[];
  /** stdout and stderr interleaved as they arrived. */
  output(): string;
  stdout(): string;
  /** Resolves once the process exited and its pipes closed. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves with the first match of `pattern` in stdout (or in stdout and stderr, `in: "output"`);
   * rejects at the deadline or the exit.
   */
  waitFor(
    pattern: RegExp,
    timeoutMs: number,
    where?: { in: "stdout" | "output" },
  ): Promise<RegExpExecArray>;
  /** SIGTERM to the group, then SIGKILL to what is left after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
}

export function start(argv: readonly string[], options: SpawnOptions): Started {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("start: empty argv");
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
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", (err) => {
      output += `\n${err.message}\n`;
      done = true;
      resolve({ code: null, signal: null });
    });
    child.on("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  const started: Started = {
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
          else if (done)
            finish(new Error(`${describe(argv)} exited before printing ${pattern}:\n${output}`));
        };
        const timer = setTimeout(
          () =>
            finish(
              new Error(
                `${describe(argv)} printed no ${pattern} within ${timeoutMs} ms:\n${output}`,
              ),
            ),
          timeoutMs,
        );
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 5000) {
      const pgid = child.pid;
      if (pgid === undefined || done) return;
      if (!signalGroup(pgid, "SIGTERM")) return;
      const timeout = new Promise((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([exited, timeout]);
      signalGroup(pgid, "SIGKILL");
    },
  };
  return started;
}

export interface Completed {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
  readonly stdout: string;
  readonly ms: number;
}

/** Runs argv to its end; after `timeoutMs` its group is ended and the call rejects. */
export async function run(
  argv: readonly string[],
  options: SpawnOptions & { readonly timeoutMs: number },
): Promise<Completed> {
  const began = performance.now();
  const proc = start(argv, options);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop();
  }, options.timeoutMs);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  if (timedOut) {
    throw new Error(
      `${describe(argv)} did not finish within ${options.timeoutMs} ms:\n${proc.output()}`,
    );
  }
  return {
    code,
    signal,
    output: proc.output(),
    stdout: proc.stdout(),
    ms: performance.now() - began,
  };
}

/** `run`, and a failure with the command's output unless it exits 0. */
export async function runOk(
  argv: readonly string[],
  options: SpawnOptions & { readonly timeoutMs: number },
): Promise<Completed> {
  const result = await run(argv, options);
  if (result.code !== 0) {
    throw new Error(
      `${describe(argv)} (in ${options.cwd}) exited ${result.code ?? result.signal}:\n${result.output}`,
    );
  }
  return result;
}

function describe(argv: readonly string[]): string {
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
