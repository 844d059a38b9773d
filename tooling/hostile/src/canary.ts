// The canary process (bin/canary.mjs) seen from the test: start it beside an attack, stop it
// for its report. It lives in a process of its own so the attacker's CPU in this process does
// not count against the server.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";

export const CANARY_AUTHORITY = "web-svc.emojivoto.svc.cluster.local:80";
const SCRIPT = fileURLToPath(new URL("../bin/canary.mjs", import.meta.url));

export interface CanaryReport {
  readonly calls: number;
  readonly errors: readonly string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export class Canary {
  readonly #child: ChildProcess;
  readonly #lines: AsyncIterator<string>;
  readonly #readline: Interface;

  /** `health: false` leaves out the Health/Check (upstream serves no gRPC health service). */
  constructor(port: number, options: { health?: boolean } = {}) {
    const args = [SCRIPT, String(port), CANARY_AUTHORITY];
    if (options.health === false) args.push("--no-health");
    this.#child = spawn(process.execPath, args, {
      stdio: ["pipe", "pipe", "inherit"],
    });
    if (!this.#child.stdout) throw new Error("canary: no stdout");
    this.#readline = createInterface({ input: this.#child.stdout });
    this.#lines = this.#readline[Symbol.asyncIterator]();
  }

  async #ask(command: string): Promise<string> {
    this.#child.stdin?.write(`${command}\n`);
    const next = await this.#lines.next();
    if (next.done) throw new Error(`canary exited (${this.#child.exitCode}) on "${command}"`);
    return next.value;
  }

  /** Resolves after a first round of calls succeeded or failed: connections are up. */
  async start(): Promise<void> {
    await this.#ask("start");
  }

  /** Stops probing, waits for the calls under way, and reports those since the last stop. */
  async stop(): Promise<CanaryReport> {
    return JSON.parse(await this.#ask("stop")) as CanaryReport;
  }

  async close(): Promise<void> {
    this.#child.stdin?.write("exit\n");
    this.#readline.close();
    if (this.#child.exitCode === null) {
      await new Promise((resolve) => this.#child.once("exit", resolve));
    }
  }
}
