// The test's handle on bin/ns-agent.mjs, the helper that runs inside a namespace: fake pods on
// pod IPs, and Unix-socket bridges between the root namespace and the test's.
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { NetworkNamespace, StartedProcess } from "./network-namespace.js";

const AGENT = fileURLToPath(new URL("../bin/ns-agent.mjs", import.meta.url));

/** How a fake HTTP pod answers: `flaky` fails every other request (the 1st, 3rd, …) with 500. */
export type HttpPodMode = { mode: "ok" } | { mode: "flaky" } | { mode: "slow"; delayMs: number };

export class NamespaceAgent {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(): void; reject(e: Error): void }>();

  private constructor(
    private readonly process: StartedProcess,
    /** A folder for the bridges' Unix sockets. */
    readonly socketDir: string,
  ) {
    const stdout = process.child.stdout;
    if (stdout === null || stdout === undefined) throw new Error("ns-agent has no stdout");
    createInterface({ input: stdout }).on("line", (line) => {
      let reply: { id: number; ok: boolean; error?: string };
      try {
        reply = JSON.parse(line);
      } catch {
        return;
      }
      const waiter = this.pending.get(reply.id);
      if (waiter === undefined) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve();
      else waiter.reject(new Error(`ns-agent: ${reply.error}`));
    });
    void process.exited.then(() => {
      for (const w of this.pending.values()) w.reject(new Error("ns-agent exited"));
      this.pending.clear();
    });
  }

  static start(ns: NetworkNamespace, socketDir: string): NamespaceAgent {
    const proc = ns.start("ns-agent", process.execPath, [AGENT], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    return new NamespaceAgent(proc, socketDir);
  }

  private command(op: string, args: Record<string, unknown>): Promise<void> {
    const id = ++this.nextId;
    const stdin = this.process.child.stdin;
    if (stdin === null || stdin === undefined) return Promise.reject(new Error("no stdin"));
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      stdin.write(`${JSON.stringify({ id, op, ...args })}\n`);
    });
  }

  /** A fake HTTP pod at host:port; its answers name it (`{"pod": name, "clientId": …}`). */
  httpPod(name: string, host: string, port: number, mode: HttpPodMode = { mode: "ok" }) {
    return this.command("http-pod", { name, host, port, ...mode });
  }

  /** A fake TCP pod: writes `name\n`, then echoes every byte back. */
  tcpPod(name: string, host: string, port: number) {
    return this.command("tcp-pod", { name, host, port });
  }

  /**
   * host:port inside the namespace, connected to the Unix socket `socketPath` outside; given
   * several, each connection to the next that accepts it (round-robin, like a ClusterIP).
   */
  listen(name: string, host: string, port: number, socketPath: string | readonly string[]) {
    return typeof socketPath === "string"
      ? this.command("listen", { name, host, port, socket: socketPath })
      : this.command("listen", { name, host, port, sockets: socketPath });
  }

  /** A Unix socket (returned) whose connections reach host:port inside the namespace. */
  async forward(name: string, host: string, port: number): Promise<string> {
    const socket = `${this.socketDir}/${name}.sock`;
    await this.command("forward", { name, host, port, socket });
    return socket;
  }

  /** A DNS server on host:port (UDP) answering A queries for `records` (name → IPv4s). */
  dns(name: string, host: string, port: number, records: Record<string, readonly string[]>) {
    return this.command("dns", { name, host, port, records });
  }

  /** Stops a pod or bridge; its open connections are cut. */
  close(name: string) {
    return this.command("close", { name });
  }
}
