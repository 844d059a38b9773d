// A TCP proxy in front of the API server whose connections the test can cut: the client under
// test loses its watches (as on a network partition) while the test keeps writing to the API
// server directly. TLS passes through untouched; the serving certificate names 127.0.0.1, so a
// kubeconfig pointing at the proxy's port verifies as it would against the server itself.
import { writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { type KubeEnv, renderKubeconfig } from "@destination/k8s-env";

export class CutProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  /** Forwarding pairs, client first, for `mute()`. */
  readonly #pairs = new Set<readonly [net.Socket, net.Socket]>();
  #cut = false;
  #muted = false;
  /** Connections accepted while connected. */
  accepted = 0;
  /** Connections refused while cut. */
  refused = 0;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port and forwards to `targetPort`. */
  static async start(targetPort: number): Promise<CutProxy> {
    const server = net.createServer();
    const proxy = new CutProxy(server);
    server.on("connection", (client) => proxy.#accept(client, targetPort));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Whether connections are cut now. */
  get isCut(): boolean {
    return this.#cut;
  }

  /** Resets every open connection and refuses new ones until `restore()`. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.resetAndDestroy();
    this.#sockets.clear();
  }

  /**
   * An API server that accepts and never answers: open connections stay open but forward
   * nothing more (they stay so for good), and new ones are accepted and held without a byte,
   * until `restore()`. The peers' TCP stacks still acknowledge, so only the client's own
   * deadlines can tell.
   */
  mute(): void {
    this.#cut = false;
    this.#muted = true;
    for (const [client, upstream] of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.#pairs.clear();
  }

  restore(): void {
    this.#cut = false;
    this.#muted = false;
  }

  /** An admin kubeconfig (the env's client certificate) whose server is this proxy. */
  writeKubeconfig(env: KubeEnv, fileName = "via-proxy.kubeconfig"): string {
    const path = join(env.tempDir, fileName);
    writeFileSync(
      path,
      renderKubeconfig(`https://127.0.0.1:${this.port}`, env.caPem, {
        name: "k8s-env-admin",
        clientCertificatePem: env.adminCertPem,
        clientKeyPem: env.adminKeyPem,
      }),
      { mode: 0o600 },
    );
    return path;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket, targetPort: number): void {
    if (this.#cut) {
      this.refused += 1;
      client.resetAndDestroy();
      return;
    }
    this.accepted += 1;
    if (this.#muted) {
      this.#sockets.add(client);
      client.on("error", () => client.destroy());
      client.on("close", () => this.#sockets.delete(client));
      return;
    }
    const upstream = net.connect(targetPort, "127.0.0.1");
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    const pair = [client, upstream] as const;
    this.#pairs.add(pair);
    const done = () => {
      this.#pairs.delete(pair);
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", done);
    upstream.on("error", done);
    client.on("close", done);
    upstream.on("close", done);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
