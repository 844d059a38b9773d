// The built destination server, started as the deployment runs it (the same V8 heap cap) on the
// example manifests, on free loopback ports; its RSS is read from /proc, as a kubelet would.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BIN = `${ROOT}apps/destination-server/bin/destination-server.js`;
const EXAMPLES = `${ROOT}examples`;
/** deploy/deployment.yaml's NODE_OPTIONS. */
const HEAP_CAP = "--max-old-space-size=448";
/** Runs a full GC on SIGUSR2 inside the server (see liveHeapMiB). */
const GC_ON_SIGNAL = fileURLToPath(new URL("../bin/gc-on-signal.mjs", import.meta.url));
const GC_DONE = "hostile: gc done";

export class ServerUnderAttack {
  #stderr = "";
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Full GCs the server reported done (see liveHeapMiB); undefined for upstream. */
  #gcsDone: number | undefined;
  #partialLine = "";

  private constructor(
    private readonly child: ChildProcess,
    readonly grpcPort: number,
    readonly adminPort: number,
  ) {}

  static start(extraArgs: readonly string[] = []): Promise<ServerUnderAttack> {
    const child = spawn(
      process.execPath,
      [
        HEAP_CAP,
        // A full GC on a signal, so the suite can tell garbage from what is held (liveHeapMiB).
        "--expose-gc",
        "--import",
        GC_ON_SIGNAL,
        // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to see where an attack's CPU goes.
        ...(process.env.HOSTILE_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
        BIN,
        "--manifests",
        EXAMPLES,
        "--addr",
        "127.0.0.1:0",
        "--metrics-addr",
        "127.0.0.1:0",
        "--log-format",
        "json",
        ...extraArgs,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return new Promise((resolve, reject) => {
      let stderr = "";
      let server: ServerUnderAttack | undefined;
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk;
        if (server) {
          server.#stderr = (server.#stderr + chunk).slice(-64 * 1024);
          server.#countGcs(chunk.toString());
          return;
        }
        for (const line of stderr.split("\n")) {
          if (!line.startsWith("{")) continue;
          const record = JSON.parse(line) as {
            msg?: string;
            grpcPort?: number;
            adminPort?: number;
          };
          if (record.msg === "ready" && record.grpcPort && record.adminPort) {
            server = new ServerUnderAttack(child, record.grpcPort, record.adminPort);
            server.#gcsDone = 0;
            server.#stderr = stderr.slice(-64 * 1024);
            child.on("exit", (code, signal) => {
              if (server) server.#exit = { code, signal };
            });
            resolve(server);
            return;
          }
        }
      });
      child.once("exit", (code, signal) => {
        if (!server) reject(new Error(`destination-server exited (${code ?? signal}):\n${stderr}`));
      });
    });
  }

  /**
   * Upstream's Go destination server (`<bin> destination`, a built linkerd2 controller) on a
   * real API server, for the side-by-side figures; resolves once its admin `/ready` is 200.
   */
  static async startUpstream(bin: string, kubeconfig: string): Promise<ServerUnderAttack> {
    const [grpcPort, adminPort] = [await freePort(), await freePort()];
    const child = spawn(
      bin,
      [
        "destination",
        `-kubeconfig=${kubeconfig}`,
        `-addr=127.0.0.1:${grpcPort}`,
        `-metrics-addr=127.0.0.1:${adminPort}`,
        "-controller-namespace=linkerd",
        "-identity-trust-domain=cluster.local",
        "-cluster-domain=cluster.local",
        "-enable-endpoint-slices=true",
        "-log-level=warn",
      ],
      {
        stdio: ["ignore", "ignore", "pipe"],
        // Its ExternalWorkload controller names its leader-election lease holder after the pod.
        env: { ...process.env, HOSTNAME: process.env.HOSTNAME || "destination-hostile" },
      },
    );
    const server = new ServerUnderAttack(child, grpcPort, adminPort);
    child.stderr?.on("data", (chunk: Buffer) => {
      server.#stderr = (server.#stderr + chunk).slice(-64 * 1024);
    });
    child.on("exit", (code, signal) => {
      server.#exit = { code, signal };
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (!server.alive) throw new Error(`upstream exited (${server.exit}):\n${server.logTail}`);
      const ready = await fetch(`http://127.0.0.1:${adminPort}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) return server;
      if (Date.now() > deadline) {
        await server.stop();
        throw new Error(`upstream not ready in 60 s:\n${server.logTail}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** False once the process has exited, for whatever reason. */
  get alive(): boolean {
    return this.#exit === undefined && this.child.exitCode === null;
  }

  /** How it exited, for a failure message. */
  get exit(): string {
    // The exit event can come a moment after the process is gone.
    const exit = this.#exit ?? { code: this.child.exitCode, signal: this.child.signalCode };
    return exit.code !== null || exit.signal !== null
      ? `code ${exit.code}, signal ${exit.signal}`
      : "running";
  }

  /** The last 64 KiB of its log. */
  get logTail(): string {
    return this.#stderr;
  }

  /** Resident set size in MiB (VmRSS), or NaN once the process is gone. */
  rssMiB(): number {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
      const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
      return kib / 1024;
    } catch {
      return Number.NaN;
    }
  }

  /** The used heap in MiB, from the admin /metrics: V8's, or Go's for upstream. */
  async heapUsedMiB(): Promise<number> {
    const text = await this.#metrics();
    const bytes = text.includes("nodejs_heap_size_used_bytes")
      ? sumOf(text, "nodejs_heap_size_used_bytes")
      : sumOf(text, "go_memstats_heap_alloc_bytes");
    return bytes / 1024 / 1024;
  }

  /**
   * V8's used heap in MiB right after a full GC: what the server still holds, without the
   * garbage an idle V8 leaves uncollected. SIGUSR2 runs the GC (bin/gc-on-signal.mjs), which
   * reports on stderr once it is done. NaN for upstream, whose GC is not forced from outside.
   */
  async liveHeapMiB(): Promise<number> {
    if (this.#gcsDone === undefined || !this.alive) return Number.NaN;
    const before = this.#gcsDone;
    this.child.kill("SIGUSR2");
    const deadline = Date.now() + 30_000;
    while (this.#gcsDone <= before) {
      if (Date.now() > deadline || !this.alive) return Number.NaN;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.heapUsedMiB();
  }

  /** Counts the GC reports in the server's stderr, whole lines only. */
  #countGcs(text: string): void {
    const lines = (this.#partialLine + text).split("\n");
    this.#partialLine = lines.pop() ?? "";
    for (const line of lines) {
      if (line === GC_DONE && this.#gcsDone !== undefined) this.#gcsDone++;
    }
  }

  /** Calls the server started and has not finished (grpc_server_started − handled). */
  async openCalls(): Promise<number> {
    const text = await this.#metrics();
    return sumOf(text, "grpc_server_started_total") - sumOf(text, "grpc_server_handled_total");
  }

  async #metrics(): Promise<string> {
    // A pooled keep-alive connection the server closes as fetch reuses it fails with
    // ECONNRESET; a fresh one then answers.
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`http://127.0.0.1:${this.adminPort}/metrics`);
        return await res.text();
      } catch (err) {
        if (attempt >= 3 || !this.alive) {
          throw new Error(`/metrics failed (server ${this.exit}):\n${this.logTail}`, {
            cause: err,
          });
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The sum of every series of `name` in Prometheus text. */
function sumOf(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== " " && rest[0] !== "{") continue;
    sum += Number(rest.slice(rest.lastIndexOf(" ") + 1));
  }
  return sum;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
