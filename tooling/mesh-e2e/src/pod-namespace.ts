// A network namespace standing for one pod: the control plane's pods (linkerd-identity,
// linkerd-destination) each get one, as in a cluster, so every container keeps the ports the
// chart gives it. The API server (root namespace loopback) is reachable inside at the address
// its kubeconfig names; `expose` makes a port inside reachable from other namespaces through a
// Unix socket.
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import { NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import { NetworkNamespace, type StartedProcess } from "@destination/proxy-e2e/network-namespace";
import { rootLoopbackBridge } from "@destination/proxy-e2e/root-loopback-bridge";

export class PodNamespace {
  private readonly bridges: Server[] = [];
  private readonly exposed = new Map<string, Promise<string>>();

  private constructor(
    readonly name: string,
    readonly ns: NetworkNamespace,
    readonly agent: NamespaceAgent,
    /** A folder of this pod's own: its files, the Unix sockets of its bridges. */
    readonly dir: string,
  ) {}

  /** Makes the namespace and its agent; with `apiServer`, a way to the API server inside. */
  static async create(name: string, apiServer?: KubeEnv): Promise<PodNamespace> {
    const dir = mkdtempSync(join(tmpdir(), `mesh-e2e-${name}-`));
    const ns = NetworkNamespace.create("me2e");
    const pod = new PodNamespace(name, ns, NamespaceAgent.start(ns, dir), dir);
    try {
      if (apiServer !== undefined) {
        const port = Number(new URL(apiServer.server).port);
        const socket = join(dir, "apiserver-root.sock");
        pod.bridges.push(await rootLoopbackBridge(socket, port));
        await pod.agent.listen("apiserver", "127.0.0.1", port, socket);
      }
    } catch (err) {
      await pod.close();
      throw err;
    }
    return pod;
  }

  /** A Unix socket whose connections reach host:port in this pod (127.0.0.1 by default). */
  expose(port: number, host = "127.0.0.1"): Promise<string> {
    const key = `${host}:${port}`;
    let socket = this.exposed.get(key);
    if (socket === undefined) {
      socket = this.agent.forward(`to-${host}-${port}`, host, port);
      this.exposed.set(key, socket);
    }
    return socket;
  }

  start(name: string, cmd: string, args: string[], env: Record<string, string>): StartedProcess {
    return this.ns.start(name, cmd, args, {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    });
  }

  diagnostics(): string {
    return this.ns.outputs();
  }

  async close(): Promise<void> {
    await this.ns.delete();
    for (const b of this.bridges) b.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
