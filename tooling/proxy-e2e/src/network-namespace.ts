// A network namespace made for one test, and the processes the test starts in it. Everything a
// test's proxies and pods talk to lives in here, so that no address outside the namespace (but
// the root namespace's loopback, through Unix-socket bridges) is ever used.
import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

/** Every address a test uses for pods, Services and nodes: local to the namespace's `lo`. */
export const NAMESPACE_LOCAL_RANGE = "10.0.0.0/8";

export interface StartedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves once the process has exited (at once if it has). */
  readonly exited: Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")}: ${e.stderr?.trim() || e.message}`);
  }
}

export class NetworkNamespace {
  private readonly processes: StartedProcess[] = [];
  private deleted = false;

  private constructor(readonly name: string) {}

  /**
   * Makes the namespace with `lo` up, the whole of NAMESPACE_LOCAL_RANGE local to it, and a nat
   * rule (a counter), which turns on connection tracking there: the proxy reads every accepted
   * connection's original destination (SO_ORIGINAL_DST) from conntrack.
   */
  static create(prefix = "pe2e"): NetworkNamespace {
    const ns = new NetworkNamespace(`${prefix}-${randomBytes(4).toString("hex")}`);
    run("ip", ["netns", "add", ns.name]);
    try {
      ns.exec("ip", ["link", "set", "lo", "up"]);
      ns.exec("ip", ["route", "add", "local", NAMESPACE_LOCAL_RANGE, "dev", "lo"]);
      // A conntrack match with no target: it only counts, but loading the match turns on
      // connection tracking in the namespace (a bare nat chain does not).
      ns.iptables("-t", "nat", "-A", "OUTPUT", "-p", "tcp", "-m", "conntrack", "--ctstate", "NEW");
    } catch (err) {
      void ns.delete();
      throw err;
    }
    return ns;
  }

  /** Runs a command in the namespace to completion; throws with its stderr on failure. */
  exec(cmd: string, args: string[]): string {
    return run("ip", ["netns", "exec", this.name, cmd, ...args]);
  }

  iptables(...args: string[]): void {
    this.exec("iptables", ["-w", ...args]);
  }

  /**
   * Redirects TCP to `cidr` (optionally one port) to `toPort` on loopback, for every process but
   * those of `exceptUid` (the proxy itself, whose own connections must go where it sends them).
   */
  redirect(cidr: string, toPort: number, exceptUid: number, dport?: number): void {
    this.iptables(
      "-t",
      "nat",
      "-I",
      "OUTPUT",
      "1",
      "-p",
      "tcp",
      "-d",
      cidr,
      ...(dport === undefined ? [] : ["--dport", String(dport)]),
      "-m",
      "owner",
      "!",
      "--uid-owner",
      String(exceptUid),
      "-j",
      "REDIRECT",
      "--to-ports",
      String(toPort),
    );
  }

  /** Starts a long-running process in the namespace; afterEach's `delete` ends it. */
  start(name: string, cmd: string, args: string[], options: SpawnOptions = {}): StartedProcess {
    const child = spawn("ip", ["netns", "exec", this.name, cmd, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      ...options,
    });
    let out = "";
    child.stdout?.on("data", (d) => {
      out += d;
    });
    child.stderr?.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    const proc: StartedProcess = {
      name,
      child,
      output: () => out,
      exited,
      async stop(graceMs = 2000) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
          await exited;
          clearTimeout(timer);
        }
      },
    };
    this.processes.push(proc);
    return proc;
  }

  /** Output of every process started here, for a failing test's message. */
  outputs(): string {
    return this.processes.map((p) => `--- ${p.name}\n${p.output().slice(-6000)}`).join("\n");
  }

  /**
   * Stops every process started here, kills anything else still in the namespace (a grandchild
   * that outlived its parent), and deletes the namespace. Safe to call twice.
   */
  async delete(): Promise<void> {
    if (this.deleted) return;
    this.deleted = true;
    await Promise.all(this.processes.map((p) => p.stop(1000)));
    try {
      const pids = run("ip", ["netns", "pids", this.name]).split("\n").filter(Boolean);
      for (const pid of pids) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // Gone already.
        }
      }
    } catch {
      // The namespace may not exist (creation failed half way).
    }
    try {
      run("ip", ["netns", "delete", this.name]);
    } catch {
      // Nothing left to delete.
    }
  }
}
