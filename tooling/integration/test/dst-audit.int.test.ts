// `dst audit --kubeconfig` on a real kube-apiserver: the reference it builds from the cluster
// agrees with a server that watches the same cluster (exit 0), and names the endpoint a server
// serving something else lacks (exit 1). Both the server and dst run as their built binaries.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  service,
  slice,
} from "@destination/test-support/builders";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedServer, spawnServer } from "../src/binary.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";

const DST = fileURLToPath(new URL("../../../apps/cli/bin/dst.js", import.meta.url));
const AUTHORITY = "cart.shop.svc.cluster.local:8080";

const cart = (ips: string[]) => [
  service("cart", {
    namespace: "shop",
    ports: [{ port: 8080, protocol: "TCP" }],
    clusterIP: "10.96.3.10",
  }),
  ...ips.map((ip, i) =>
    pod(`cart-${i}`, {
      ...CLUSTER_POD,
      namespace: "shop",
      ip,
      labels: {},
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  ),
  slice(
    "cart-1",
    "cart",
    ips.map((ip, i) => podEndpoint(`cart-${i}`, ip, { namespace: "shop" })),
    { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] },
  ),
];

function dst(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DST, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

let ctx: IntegrationEnv | undefined;
const servers: SpawnedServer[] = [];
let folder: string | undefined;
beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.apply(...clusterBasics(), ...cart(["10.244.3.1", "10.244.3.2"]));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await ctx?.stop();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe("dst audit --kubeconfig (real kube-apiserver)", () => {
  it("agrees with a server watching the same cluster", async () => {
    if (!ctx) throw new Error("no API server");
    const server = await spawnServer(["--kubeconfig", ctx.env.kubeconfigPath]);
    servers.push(server);
    const run = await dst([
      "audit",
      "--kubeconfig",
      ctx.env.kubeconfigPath,
      "--addr",
      `127.0.0.1:${server.grpcPort}`,
      "-o",
      "json",
      AUTHORITY,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"status":"ok"');
  });

  it("names what a server serving something else lacks, and exits 1", async () => {
    if (!ctx) throw new Error("no API server");
    // A server that knows one pod of the two the cluster has.
    folder = await mkdtemp(join(tmpdir(), "dst-audit-int-"));
    await writeFile(
      join(folder, "cart.yaml"),
      [...clusterBasics(), ...cart(["10.244.3.1"])].map((o) => JSON.stringify(o)).join("\n---\n"),
    );
    const stale = await spawnServer(["--manifests", folder]);
    servers.push(stale);
    const run = await dst([
      "audit",
      "--kubeconfig",
      ctx.env.kubeconfigPath,
      "--addr",
      `127.0.0.1:${stale.grpcPort}`,
      AUTHORITY,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/divergent/);
    expect(run.stdout).toMatch(/missing 10\.244\.3\.2:8080/);
    // Rechecked after the default settle time on the reference's live watches: it persists.
    expect(run.stderr).toMatch(/rechecking in 2000 ms/);
    expect(run.stdout).toMatch(/persists/);
  });
});

describe("dst audit --server-args-from (real kube-apiserver)", () => {
  // The server as upstream's chart runs it: `destination` and its flags as the args of the
  // `destination` container.
  const SERVER_FLAGS = ["-enable-h2-upgrade=false", "-identity-trust-domain=example.org"];
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "linkerd-destination", namespace: "linkerd" },
    spec: {
      selector: { matchLabels: { app: "destination" } },
      template: {
        metadata: { labels: { app: "destination" } },
        spec: {
          containers: [
            { name: "linkerd-proxy", image: "proxy:dev" },
            {
              name: "destination",
              image: "controller:dev",
              args: ["destination", "-addr=:8086", ...SERVER_FLAGS, "-log-level=info"],
            },
          ],
        },
      },
    },
  };

  it("reads the destination container's args: agrees with a server run with them", async () => {
    if (!ctx) throw new Error("no API server");
    await ctx.api.apply(deployment);
    const server = await spawnServer(["--kubeconfig", ctx.env.kubeconfigPath, ...SERVER_FLAGS]);
    servers.push(server);
    const base = ["audit", "--kubeconfig", ctx.env.kubeconfigPath];
    const addr = ["--addr", `127.0.0.1:${server.grpcPort}`];
    const from = ["--server-args-from", "linkerd/linkerd-destination"];

    const agreed = await dst([...base, ...addr, ...from, AUTHORITY]);
    expect(agreed.stderr).toBe("");
    expect(agreed.code).toBe(0);

    // The server's defaults instead: every endpoint differs in what those flags change.
    const defaults = await dst([...base, ...addr, "--settle", "0", AUTHORITY]);
    expect(defaults.code).toBe(1);
    expect(defaults.stdout).toMatch(/changed 10\.244\.3\.1:8080 \(protocolHint, tlsIdentity\)/);

    const missing = await dst([...base, ...addr, "--server-args-from", "linkerd/nope", AUTHORITY]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^dst: cannot read the server flags of Deployment linkerd\/nope: .*HTTP 404/,
    );
  });
});
