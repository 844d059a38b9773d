/** The parent side of a bench child process: spawn, request/reply, and a bounded exit. */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Envelope, WorkerReply, WorkerRequest } from "./protocol.js";

type ReplyOf<T extends WorkerReply["type"]> = Extract<WorkerReply, { type: T }>;

export class Worker {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: WorkerReply) => void>();
  readonly #exited: Promise<void>;
  #nextId = 1;
  #exitCode: number | null | undefined;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on("message", (raw: Envelope<WorkerReply>) => {
      const resolve = this.#pending.get(raw.id);
      this.#pending.delete(raw.id);
      resolve?.(raw.body);
    });
    this.#exited = new Promise((resolve) =>
      child.on("exit", (code) => {
        this.#exitCode = code;
        for (const resolve of this.#pending.values()) {
          resolve({ type: "error", message: `bench child exited (${code})` });
        }
        this.#pending.clear();
        resolve();
      }),
    );
  }

  /** Starts `dist/<script>` with --expose-gc, so that its heap can be measured after a GC. */
  static spawn(script: "server-worker.js" | "baseline-worker.js") {
    const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
    const child = fork(path, [], {
      execArgv: ["--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new Worker(child);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends a request and resolves with its reply; rejects on an error reply or a timeout. */
  request<T extends WorkerReply["type"]>(
    body: WorkerRequest,
    expect: T,
    timeoutMs = 120_000,
  ): Promise<ReplyOf<T>> {
    if (this.#exitCode !== undefined) {
      return Promise.reject(new Error(`bench child already exited (${this.#exitCode})`));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`bench child did not answer ${body.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.type === expect) resolve(reply as ReplyOf<T>);
        else if (reply.type === "error") reject(new Error(`${body.type}: ${reply.message}`));
        else reject(new Error(`${body.type}: unexpected reply ${reply.type}`));
      });
      this.#child.send({ id, body } satisfies Envelope<WorkerRequest>);
    });
  }

  /** Asks the child to close its server and exit; kills it (by pid) after `timeoutMs`. */
  async close(timeoutMs = 15_000): Promise<void> {
    if (this.#exitCode !== undefined) return;
    await this.request({ type: "exit" }, "ok", timeoutMs).catch(() => {});
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), timeoutMs);
    await this.#exited;
    clearTimeout(timer);
  }
}
