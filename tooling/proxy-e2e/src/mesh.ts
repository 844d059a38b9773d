// Everything one test needs, in a namespace of its own: the fake pods and bridges (the agent),
// our destination server on one of the two backends, the identity service, and the proxies.
// `close()` ends all of it, also after a failure.
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeEnv } from "@destination/k8s-env";
import type { KubeObject } from "./cluster-objects.js";
import { ApiServerWriter, type ClusterWriter, ManifestsWriter } from "./cluster-writer.js";
import {
  type Backend,
  DESTINATION_ADMIN_PORT,
  type DestinationServerInNamespace,
  startDestinationServer,
} from "./destination-server.js";
import { httpGet } from "./http-over-socket.js";
import { type RunningIdentityService, startIdentityService } from "./identity-service.js";
import { IDENTITY_PORT, LinkerdProxy, type ProxyOptions } from "./linkerd-proxy.js";
import { NamespaceAgent } from "./namespace-agent.js";
import { NetworkNamespace } from "./network-namespace.js";
import { parseSeries, type Series } from "./prometheus-text.js";
import { rootLoopbackBridge } from "./root-loopback-bridge.js";
import type { TestPki } from "./test-pki.js";

export type BackendChoice = { kind: "manifests" } | { kind: "kube-apiserver"; env: KubeEnv };

export class Mesh {
  readonly proxies: LinkerdProxy[] = [];
  private server: DestinationServerInNamespace | undefined;
  private readonly applied = new Map<string, { kind: string; name: string }>();
  private readonly bridges: Server[] = [];
  private serverAdminSocket: string | undefined;

  private constructor(
    readonly ns: NetworkNamespace,
    readonly agent: NamespaceAgent,
    readonly workDir: string,
    readonly identity: RunningIdentityService,
    readonly cluster: ClusterWriter,
    private readonly backend: Backend,
    private readonly pki: TestPki,
  ) {}

  /**
   * Makes the namespace, starts the agent and the identity service (reachable in the namespace
   * at 127.0.0.1:8080), and, for the real API server, a bridge to it at the port its kubeconfig
   * names. Our server is started separately (`startServer`), after the test's first objects.
   */
  static async create(pki: TestPki, choice: BackendChoice): Promise<Mesh> {
    const workDir = mkdtempSync(join(tmpdir(), "proxy-e2e-"));
    const ns = NetworkNamespace.create();
    const cleanup: (() => Promise<void>)[] = [async () => ns.delete()];
    try {
      const agent = NamespaceAgent.start(ns, workDir);
      const identity = await startIdentityService(pki, join(workDir, "identity.sock"));
      cleanup.push(() => identity.close());
      await agent.listen("identity", "127.0.0.1", IDENTITY_PORT, identity.socketPath);
      let cluster: ClusterWriter;
      let backend: Backend;
      const bridges: Server[] = [];
      if (choice.kind === "manifests") {
        const writer = new ManifestsWriter();
        cluster = writer;
        backend = { manifests: writer.dir };
      } else {
        const port = Number(new URL(choice.env.server).port);
        const socket = join(workDir, "apiserver.sock");
        bridges.push(await rootLoopbackBridge(socket, port));
        await agent.listen("apiserver", "127.0.0.1", port, socket);
        cluster = new ApiServerWriter(choice.env);
        backend = { kubeconfig: choice.env.kubeconfigPath };
      }
      const mesh = new Mesh(ns, agent, workDir, identity, cluster, backend, pki);
      mesh.bridges.push(...bridges);
      return mesh;
    } catch (err) {
      for (const c of cleanup.reverse()) await c().catch(() => {});
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  async apply(...objects: KubeObject[]): Promise<void> {
    for (const o of objects)
      this.applied.set(`${o.kind}/${o.metadata.name}`, { kind: o.kind, name: o.metadata.name });
    await this.cluster.apply(...objects);
  }

  async delete(kind: string, name: string): Promise<void> {
    this.applied.delete(`${kind}/${name}`);
    await this.cluster.delete(kind, name);
  }

  /** `name` replaced by `next` in one change (see ClusterWriter.replace). */
  async replace(kind: string, name: string, next: KubeObject): Promise<void> {
    this.applied.delete(`${kind}/${name}`);
    this.applied.set(`${next.kind}/${next.metadata.name}`, {
      kind: next.kind,
      name: next.metadata.name,
    });
    await this.cluster.replace(kind, name, next);
  }

  async startServer(): Promise<void> {
    if (this.server !== undefined) throw new Error("the destination server is running already");
    this.server = await startDestinationServer(this.ns, this.backend);
  }

  /** Our server's admin /metrics, through a bridge into the namespace. */
  async serverMetrics(): Promise<Series[]> {
    this.serverAdminSocket ??= await this.agent.forward(
      "destination-admin",
      "127.0.0.1",
      DESTINATION_ADMIN_PORT,
    );
    const answer = await httpGet(this.serverAdminSocket, "/metrics");
    if (answer.status !== 200) throw new Error(`destination-server /metrics: ${answer.status}`);
    return parseSeries(answer.body);
  }

  async stopServer(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  async startProxy(options: ProxyOptions): Promise<LinkerdProxy> {
    const certifier = {
      trustAnchorPem: this.pki.trustAnchorPem,
      issueToken: (name: string) => this.identity.issueToken(name),
    };
    const proxy = await LinkerdProxy.start(this.ns, this.agent, certifier, this.workDir, options);
    this.proxies.push(proxy);
    return proxy;
  }

  /** Logs of everything in the namespace, for a failure message. */
  diagnostics(): string {
    return this.ns.outputs();
  }

  async close(): Promise<void> {
    await this.ns.delete();
    await this.identity.close().catch(() => {});
    for (const b of this.bridges) b.close();
    // Leave the shared API server as we found it.
    for (const { kind, name } of [...this.applied.values()].reverse()) {
      await this.cluster.delete(kind, name).catch(() => {});
    }
    await this.cluster.close();
    rmSync(this.workDir, { recursive: true, force: true });
  }
}
