import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { delimiter, join } from "node:path";
import { FakeApiServer, type RecordedRequest } from "@destination/test-support/fake-api-server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createKubeCluster, type KubeClusterOptions } from "./kube-cluster.js";
import { loadKubeConfig } from "./kube-config.js";
import { afterThisTest, selfSigned, tempDir } from "./kube-config-test-support.js";
import { KubeHttpClient } from "./kube-http.js";

// The kubeconfig suite: what client-node's KubeConfig loads, asserted at a fake API server on
// loopback by the Authorization header of each request it receives. Caches that client-node
// keeps by the clock (the service-account token for a minute, exec credentials until they
// expire) are moved past by faking `Date` only; timers and sockets stay real.

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

async function fakeServer(options: ConstructorParameters<typeof FakeApiServer>[0] = {}) {
  const server = new FakeApiServer(options);
  await server.start();
  afterThisTest(() => server.close());
  return server;
}

async function syncedCluster(options: Omit<KubeClusterOptions, "enableEndpointSlices">) {
  const cluster = createKubeCluster({ enableEndpointSlices: true, resyncMs: 0, ...options });
  afterThisTest(() => cluster.stop());
  await cluster.start();
  await cluster.whenSynced();
  return cluster;
}

const isWatch = (r: RecordedRequest) => r.query.get("watch") === "true";

/** Moves `Date` (only) forward, as if that much time had passed. */
function passTime(ms: number): void {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
}

describe("kubeconfig through @kubernetes/client-node", () => {
  it("in a cluster, sends the service-account token, and a rotated one once client-node rereads it", async () => {
    const root = tempDir();
    const serving = selfSigned(root, "apiserver");
    const server = await fakeServer({ tls: serving });
    const accountDir = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
    mkdirSync(accountDir, { recursive: true });
    writeFileSync(join(accountDir, "ca.crt"), serving.cert);
    writeFileSync(join(accountDir, "token"), "first-token");
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "127.0.0.1");
    vi.stubEnv("KUBERNETES_SERVICE_PORT", new URL(server.url).port);

    const cluster = await syncedCluster({ inCluster: true, serviceAccountPathPrefix: root });
    // One watch per cached kind, each opened once its list is in.
    const watches = cluster.servedKinds.size;
    await eventually(() => expect(server.openWatches).toBe(watches));
    expect(new Set(server.requests.map((r) => r.authorization))).toEqual(
      new Set(["Bearer first-token"]),
    );

    // Ends every watch and returns the credentials the watches that replace them carried.
    const reconnect = async () => {
      const from = server.requests.length;
      server.endWatches();
      await eventually(
        () => {
          expect(server.requests.slice(from).filter(isWatch).length).toBeGreaterThanOrEqual(
            watches,
          );
          expect(server.openWatches).toBe(watches);
        },
        { intervalMs: 20 },
      );
      return new Set(server.requests.slice(from).map((r) => r.authorization));
    };

    // The kubelet rotates the projected token; client-node rereads the file after a minute.
    writeFileSync(join(accountDir, "token"), "second-token");
    expect(await reconnect()).toEqual(new Set(["Bearer first-token"]));
    passTime(61_000);
    expect(await reconnect()).toEqual(new Set(["Bearer second-token"]));
  });

  it("runs an exec plugin, sends its token, and runs it again when the credential expires", async () => {
    const server = await fakeServer();
    const dir = tempDir();
    const plugin = join(dir, "plugin.mjs");
    const runs = join(dir, "runs");
    writeFileSync(runs, "0");
    // Each run counts itself and returns a token named by its count, valid for an hour.
    writeFileSync(
      plugin,
      [
        'import { readFileSync, writeFileSync } from "node:fs";',
        "const runs = process.argv[2];",
        'const n = Number(readFileSync(runs, "utf8")) + 1;',
        "writeFileSync(runs, String(n));",
        "const expirationTimestamp = new Date(Date.now() + 3_600_000).toISOString();",
        "process.stdout.write(JSON.stringify({",
        '  apiVersion: "client.authentication.k8s.io/v1",',
        '  kind: "ExecCredential",',
        '  status: { token: "exec-" + n, expirationTimestamp },',
        "}));",
      ].join("\n"),
    );
    const config = loadKubeConfig({
      kubeconfigYaml: [
        "current-context: a",
        "clusters:",
        `- name: c\n  cluster:\n    server: ${server.url}\n    insecure-skip-tls-verify: true`,
        "users:",
        `- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(plugin)}, ${JSON.stringify(runs)}]\n      interactiveMode: Never`,
        "contexts:",
        "- name: a\n  context: {cluster: c, user: u}",
      ].join("\n"),
    });
    const client = new KubeHttpClient(config);
    const sent = async () => {
      await client.json({ path: "/api/v1" });
      return server.requests.at(-1)?.authorization;
    };

    expect(await sent()).toBe("Bearer exec-1");
    expect(await sent()).toBe("Bearer exec-1");
    expect(readFileSync(runs, "utf8")).toBe("1");
    passTime(2 * 3_600_000);
    expect(await sent()).toBe("Bearer exec-2");
  });

  it("merges the files of $KUBECONFIG: the context in one, its cluster and user in the other", async () => {
    const server = await fakeServer();
    const dir = tempDir();
    writeFileSync(
      join(dir, "contexts"),
      "current-context: work\ncontexts:\n- name: work\n  context: {cluster: fake, user: tester}\n",
    );
    writeFileSync(
      join(dir, "credentials"),
      [
        "clusters:",
        `- name: fake\n  cluster:\n    server: ${server.url}\n    insecure-skip-tls-verify: true`,
        "users:",
        "- name: tester\n  user:\n    token: from-the-second-file",
      ].join("\n"),
    );
    vi.stubEnv("KUBECONFIG", [join(dir, "contexts"), join(dir, "credentials")].join(delimiter));

    await syncedCluster({});
    expect(server.requests.filter(isWatch).length).toBeGreaterThan(0);
    expect(new Set(server.requests.map((r) => r.authorization))).toEqual(
      new Set(["Bearer from-the-second-file"]),
    );
  });

  it("goes through the cluster's proxy-url, with the credentials on each request", async () => {
    const server = await fakeServer();
    // A CONNECT proxy (client-node's proxy agents tunnel plain HTTP too): one tunnel per
    // connection, to the address asked for.
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req: http.IncomingMessage, client: Socket) => {
      tunnels.push(req.url ?? "");
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    afterThisTest(() => {
      proxy.closeAllConnections();
      return new Promise((resolve) => proxy.close(resolve));
    });
    const { port } = proxy.address() as AddressInfo;

    await syncedCluster({
      kubeconfigYaml: [
        "current-context: a",
        "clusters:",
        `- name: c\n  cluster:\n    server: ${server.url}\n    insecure-skip-tls-verify: true\n    proxy-url: http://127.0.0.1:${port}`,
        "users:",
        "- name: u\n  user: {token: via-proxy}",
        "contexts:",
        "- name: a\n  context: {cluster: c, user: u}",
      ].join("\n"),
    });
    expect(server.requests.filter(isWatch).length).toBeGreaterThan(0);
    // client-node's agent is new at every request, so each request has a tunnel of its own
    // (some opened for watches the server has not recorded yet).
    expect(tunnels.length).toBeGreaterThanOrEqual(server.requests.length);
    expect(new Set(tunnels)).toEqual(new Set([new URL(server.url).host]));
    expect(new Set(server.requests.map((r) => r.authorization))).toEqual(
      new Set(["Bearer via-proxy"]),
    );
  });
});
