import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { loadKubeConfig } from "./kube-config.js";
import { KubeHttpClient } from "./kube-http.js";

// A plain HTTP server that counts connections and can answer slowly, in small chunks.
const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function server(chunkDelayMs: number, chunks: number) {
  const sockets: Socket[] = [];
  const closed: Socket[] = [];
  const srv = http.createServer(async (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"items": [');
    for (let i = 0; i < chunks; i++) {
      await sleep(chunkDelayMs);
      res.write(i === 0 ? "1" : ",1");
    }
    res.end("]}");
  });
  srv.on("connection", (socket) => {
    sockets.push(socket);
    socket.on("close", () => closed.push(socket));
  });
  servers.push(srv);
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as AddressInfo;
  const kubeconfigYaml = [
    "apiVersion: v1",
    "kind: Config",
    "current-context: test",
    "clusters:",
    `- name: test\n  cluster:\n    server: http://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
    "users:",
    "- name: tester\n  user:\n    token: test-token",
    "contexts:",
    "- name: test\n  context:\n    cluster: test\n    user: tester",
  ].join("\n");
  return { config: loadKubeConfig({ kubeconfigYaml }), sockets, closed };
}

describe("KubeHttpClient connections", () => {
  it("keeps a response that streams slower than the idle timeout, and reuses its connection", async () => {
    const { config, sockets, closed } = await server(40, 6);
    const client = new KubeHttpClient(config, { idleSocketTimeoutMs: 100 });
    // 6 chunks 40 ms apart: 240 ms in all, with no pause of 100 ms.
    await expect(client.json({ path: "/api/v1/pods" })).resolves.toEqual({
      items: [1, 1, 1, 1, 1, 1],
    });
    await expect(client.json({ path: "/api/v1/pods" })).resolves.toHaveProperty("items");
    expect(sockets).toHaveLength(1);
    expect(closed).toHaveLength(0);
  });

  it("closes a connection that stays idle longer than the idle timeout", async () => {
    const { config, sockets, closed } = await server(0, 1);
    const client = new KubeHttpClient(config, { idleSocketTimeoutMs: 100 });
    await client.json({ path: "/api/v1/pods" });
    await sleep(400);
    expect(sockets).toHaveLength(1);
    expect(closed).toHaveLength(1);
  });
});
