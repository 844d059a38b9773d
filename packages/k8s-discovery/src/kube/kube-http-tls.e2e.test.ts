import { writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { describe, expect, it } from "vitest";
import { loadKubeConfig } from "./kube-config.js";
import { afterThisTest, selfSigned, tempDir } from "./kube-config-test-support.js";
import { KubeHttpClient } from "./kube-http.js";

// An HTTPS server that asks for a client certificate and answers with its subject's CN; it
// closes every connection after its answer, so each request makes a new TLS connection.

describe("KubeHttpClient over TLS", () => {
  it("presents a client certificate rotated on disk from the next connection on", async () => {
    const dir = tempDir();
    const serving = selfSigned(dir, "server");
    const first = selfSigned(dir, "first");
    const second = selfSigned(dir, "second");
    const server = https.createServer(
      {
        cert: serving.cert,
        key: serving.key,
        ca: [first.cert, second.cert],
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.writeHead(200, { "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ cn: peer.subject?.CN }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    afterThisTest(() => new Promise((resolve) => server.close(resolve)));
    const { port } = server.address() as AddressInfo;
    const files = {
      ca: join(dir, "ca.pem"),
      cert: join(dir, "client.crt"),
      key: join(dir, "client.key"),
    };
    writeFileSync(files.ca, serving.cert);
    const present = (pair: { cert: string; key: string }) => {
      writeFileSync(files.cert, pair.cert);
      writeFileSync(files.key, pair.key);
    };
    const config = loadKubeConfig({
      kubeconfigYaml: [
        "current-context: test",
        "clusters:",
        `- name: test\n  cluster:\n    server: https://127.0.0.1:${port}\n    certificate-authority: ${files.ca}`,
        "users:",
        `- name: tester\n  user:\n    client-certificate: ${files.cert}\n    client-key: ${files.key}`,
        "contexts:",
        "- name: test\n  context:\n    cluster: test\n    user: tester",
      ].join("\n"),
    });
    const client = new KubeHttpClient(config);
    const ask = () => client.json<{ cn: string }>({ path: "/api" });

    present(first);
    expect(await ask()).toEqual({ cn: "first" });
    expect(await ask()).toEqual({ cn: "first" });
    present(second);
    expect(await ask()).toEqual({ cn: "second" });
  });
});
