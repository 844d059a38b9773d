// Dead API server connections, on purpose (k8s-discovery README "Dead connections"): the
// server's connections to a real kube-apiserver die without a reset (blackholed in a network
// namespace the test makes), or the API server accepts and never answers (a muted proxy on
// loopback). A change made meanwhile must reach a subscribed Get stream within the silence
// bound, plus a margin; these are bound checks, not speed measurements. The times are printed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderKubeconfig } from "@destination/k8s-env";
import { DestinationClient } from "@destination/proto/client";
import { NamespaceAgent } from "@destination/proxy-e2e/namespace-agent";
import { NetworkNamespace } from "@destination/proxy-e2e/network-namespace";
import { rootLoopbackBridge } from "@destination/proxy-e2e/root-loopback-bridge";
import { endpoint, service, slice } from "@destination/test-support/builders";
import { get, ipv4, sleep } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import * as grpc from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SERVER_BIN, spawnServer } from "../src/binary.js";
import { CutProxy } from "../src/cut-proxy.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { startServer } from "../src/server.js";

const NS = "dead";
const AUTHORITY = `web.${NS}.svc.cluster.local:8080`;
// The server's default -kube-api-silence-timeout: a blackholed path fails its sockets within it.
const DEFAULT_SILENCE_MS = 12_000;
// Scheduling on a loaded two-core machine, the backoff's first step, the watch's resume.
const MARGIN_MS = 10_000;

let ctx: IntegrationEnv;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.ensureNamespace(NS);
}, 120_000);

afterAll(async () => {
  await ctx?.stop();
});

afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const webSlice = (ips: string[]) =>
  slice(
    "web-x1",
    "web",
    ips.map((ip) => endpoint(ip)),
    { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
  );

/** Resets the objects of a test: a Service `web` with one endpoint. */
async function oneEndpoint(): Promise<void> {
  await ctx.api.apply(
    service("web", { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] }),
    webSlice(["10.1.0.1"]),
  );
}

/** Whether an `add` message carries `ip`. */
function adds(message: unknown, ip: string): boolean {
  const addrs = (message as { add?: { addrs?: { addr?: { ip?: { ipv4?: number } } }[] } }).add
    ?.addrs;
  return addrs?.some((a) => a.addr?.ip?.ipv4 === ipv4(ip)) ?? false;
}

const hasNetworkTools = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("iptables", ["--version"], { stdio: "ignore" });
    execFileSync("ss", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasNetworkTools)("connections that die without a reset (root)", () => {
  const API_PORT = 6443;
  const GRPC_PORT = 8086;

  /** The server's connections to the API server open now: their local ports in the namespace. */
  function openApiConnections(ns: NetworkNamespace): number[] {
    const out = ns.exec("ss", ["-Htn", "state", "established", `( dport = :${API_PORT} )`]);
    return out
      .split("\n")
      .map((line) => /127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:\d+/.exec(line)?.[1])
      .filter((p): p is string => p !== undefined)
      .map(Number);
  }

  /** Drops every packet of these connections, both ways: no reset, no FIN, nothing. */
  function blackhole(ns: NetworkNamespace, ports: readonly number[]): void {
    for (const port of ports) {
      const p = String(port);
      const a = String(API_PORT);
      ns.iptables("-I", "INPUT", "-i", "lo", "-p", "tcp", "--sport", p, "--dport", a, "-j", "DROP");
      ns.iptables("-I", "INPUT", "-i", "lo", "-p", "tcp", "--sport", a, "--dport", p, "-j", "DROP");
    }
  }

  it("brings a slice's new endpoint to a Get stream within the bound after every API server connection was blackholed", async () => {
    await oneEndpoint();
    const ns = NetworkNamespace.create("dead");
    const socketDir = mkdtempSync(join(tmpdir(), "dead-conn-"));
    let bridge: Server | undefined;
    cleanups.push(async () => {
      await ns.delete();
      await new Promise((resolve) => (bridge ? bridge.close(resolve) : resolve(undefined)));
      rmSync(socketDir, { recursive: true, force: true });
    });
    // The API server, out in the root namespace's loopback, is 127.0.0.1:6443 in there (its
    // certificate names 127.0.0.1); the server's gRPC port comes out through a Unix socket.
    const apiPort = Number(new URL(ctx.env.server).port);
    bridge = await rootLoopbackBridge(join(socketDir, "api.sock"), apiPort);
    const agent = NamespaceAgent.start(ns, socketDir);
    await agent.listen("api", "127.0.0.1", API_PORT, join(socketDir, "api.sock"));
    const kubeconfig = join(socketDir, "kubeconfig");
    writeFileSync(
      kubeconfig,
      renderKubeconfig(`https://127.0.0.1:${API_PORT}`, ctx.env.caPem, {
        name: "k8s-env-admin",
        clientCertificatePem: ctx.env.adminCertPem,
        clientKeyPem: ctx.env.adminKeyPem,
      }),
      { mode: 0o600 },
    );
    // The default silence bound: no -kube-api-silence-timeout.
    const server = ns.start("destination-server", process.execPath, [
      SERVER_BIN,
      "--kubeconfig",
      kubeconfig,
      "--addr",
      `127.0.0.1:${GRPC_PORT}`,
      "--metrics-addr",
      "127.0.0.1:9996",
      "--log-format",
      "json",
      "--log-level",
      "debug",
      "--external-workload-controller=false",
      "--cluster-domain=cluster.local",
      "--identity-trust-domain=cluster.local",
    ]);
    await eventually(() => expect(server.output()).toContain('"msg":"ready"'), {
      timeoutMs: 60_000,
    });
    const grpcSocket = await agent.forward("grpc", "127.0.0.1", GRPC_PORT);
    const client = new DestinationClient(`unix:${grpcSocket}`, grpc.credentials.createInsecure());
    cleanups.push(() => client.close());
    const stream = get(client, AUTHORITY);
    cleanups.push(() => stream.cancel());
    expect(adds(await stream.next(), "10.1.0.1")).toBe(true);

    // Every watch is open (one connection each); then all of them go dark at once.
    await sleep(1000);
    const ports = openApiConnections(ns);
    expect(ports.length).toBeGreaterThan(0);
    blackhole(ns, ports);
    const changedAt = performance.now();
    await ctx.api.apply(webSlice(["10.1.0.1", "10.1.0.2"]));
    const message = await stream.next(DEFAULT_SILENCE_MS + MARGIN_MS);
    const tookMs = performance.now() - changedAt;
    console.log(
      `blackholed ${ports.length} API server connections; the new endpoint reached the stream after ${Math.round(tookMs)} ms (bound ${DEFAULT_SILENCE_MS} ms + ${MARGIN_MS} ms margin)`,
    );
    expect(adds(message, "10.1.0.2"), JSON.stringify(message)).toBe(true);
    expect(tookMs).toBeLessThan(DEFAULT_SILENCE_MS + MARGIN_MS);
    // Found by TCP keepalive: the slices' watch failed with a timed-out socket.
    expect(server.output()).toMatch(/the endpointslices watch failed; resuming.*ETIMEDOUT/);
  }, 180_000);
});

describe("an API server that accepts connections and never answers", () => {
  const SILENCE = "1s";
  const SILENCE_MS = 1000;

  it("fails startup within the bound, saying so, and starts once the API server answers", async () => {
    await oneEndpoint();
    const proxy = await CutProxy.start(Number(new URL(ctx.env.server).port));
    cleanups.push(() => proxy.close());
    const kubeconfig = proxy.writeKubeconfig(ctx.env, "muted-start.kubeconfig");
    const args = [
      "--kubeconfig",
      kubeconfig,
      `--kube-api-silence-timeout=${SILENCE}`,
      "--external-workload-controller=false",
      "--cluster-domain=cluster.local",
      "--identity-trust-domain=cluster.local",
    ];
    proxy.mute();
    const startedAt = performance.now();
    const failed = await spawnServer(args).then(
      async (s) => {
        await s.stop();
        return undefined;
      },
      (err: Error) => err,
    );
    const tookMs = performance.now() - startedAt;
    console.log(`startup against a muted API server failed after ${Math.round(tookMs)} ms`);
    expect(failed?.message).toContain(
      `no answer from the API server within ${SILENCE_MS / 1000} s`,
    );
    // Node's start, the flag's 1 s and the exit: far below the 60 s cache sync timeout.
    expect(tookMs).toBeLessThan(SILENCE_MS + 2 * MARGIN_MS);

    proxy.restore();
    const server = await spawnServer(args);
    cleanups.push(() => server.stop());
    expect(server.logs()).toContain('"msg":"caches synced"');
  }, 120_000);

  it("logs the silence while running, and brings a change made meanwhile once the API server answers again", async () => {
    await oneEndpoint();
    const proxy = await CutProxy.start(Number(new URL(ctx.env.server).port));
    cleanups.push(() => proxy.close());
    const dst = await startServer(proxy.writeKubeconfig(ctx.env, "muted-run.kubeconfig"), {
      kubeApiSilenceTimeoutMs: SILENCE_MS,
    });
    cleanups.push(() => dst.close());
    const stream = get(dst.client, AUTHORITY);
    cleanups.push(() => stream.cancel());
    expect(adds(await stream.next(), "10.1.0.1")).toBe(true);

    // The watches lose their connections, and every new one is accepted and left unanswered.
    proxy.cut();
    proxy.mute();
    await ctx.api.apply(webSlice(["10.1.0.1", "10.1.0.3"]));
    await eventually(() =>
      expect(dst.logs.join("\n")).toMatch(
        /the endpointslices watch failed; resuming.*no answer from the API server within 1 s/,
      ),
    );
    // Still silent: nothing could have reached the stream.
    expect(stream.received).toHaveLength(1);

    proxy.restore();
    const restoredAt = performance.now();
    // The backoff grew while the API server was silent (full jitter under a 30 s cap), then one
    // attempt that the API server answers.
    const message = await stream.next(30_000 + SILENCE_MS + MARGIN_MS);
    console.log(
      `after the API server answered again, the change reached the stream in ${Math.round(performance.now() - restoredAt)} ms`,
    );
    expect(adds(message, "10.1.0.3"), JSON.stringify(message)).toBe(true);
  }, 120_000);
});
