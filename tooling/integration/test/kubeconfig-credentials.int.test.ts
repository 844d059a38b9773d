// Credentials that change while the cluster backend runs, on a real kube-apiserver: each request
// gets them from @kubernetes/client-node's KubeConfig, so after the connections are cut the
// relists and watches carry the new ones. The old credential is made useless first (its
// ServiceAccount deleted, its user's binding removed), so the cluster can only catch up if the
// new one was sent; the audit log says who made each request and what it was answered.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeCluster, type KubeCluster } from "@destination/k8s-discovery";
import { type AuditEvent, renderKubeconfig } from "@destination/k8s-env";
import { namespace, service } from "@destination/test-support/builders";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CutProxy } from "../src/cut-proxy.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";

const NS = "credentials";
const WAIT = { timeoutMs: 60_000, intervalMs: 100 };

let ctx: IntegrationEnv | undefined;
let dir = "";
beforeAll(async () => {
  ctx = await startIntegrationEnv();
  dir = mkdtempSync(join(tmpdir(), "kubeconfig-credentials-"));
  await ctx.api.apply(namespace(NS));
});
afterAll(async () => {
  await ctx?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

function env(): IntegrationEnv {
  if (!ctx) throw new Error("no API server");
  return ctx;
}

async function proxy(): Promise<CutProxy> {
  const started = await CutProxy.start(Number(new URL(env().env.server).port));
  cleanup.push(() => started.close());
  return started;
}

async function started(cluster: KubeCluster): Promise<KubeCluster> {
  cleanup.push(() => cluster.stop());
  await cluster.start();
  await cluster.whenSynced();
  return cluster;
}

/** Binds `subject` (a user or a ServiceAccount) to cluster-admin. */
async function bindClusterAdmin(name: string, subject: Record<string, string>): Promise<void> {
  await env().env.apply([
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "cluster-admin",
      },
      subjects: [subject],
    },
  ]);
}

/** Cuts every connection of the backend and lets it connect again. */
function reconnect(via: CutProxy): void {
  via.cut();
  via.restore();
}

/** The lists and watches `username` made since `since`, with the status each was answered. */
function readsBy(username: string, since: Date): string[] {
  return env()
    .env.auditEvents({ username })
    .filter((e: AuditEvent) => new Date(e.requestReceivedTimestamp) >= since)
    .filter((e) => e.verb === "list" || e.verb === "watch")
    .map((e) => `${e.verb} ${e.responseStatus?.code ?? "?"}`);
}

describe("credentials applied by client-node's KubeConfig (real kube-apiserver)", () => {
  it("sends the rotated service-account token after a reconnect, once client-node rereads it", async () => {
    const { env: kube, api } = env();
    const via = await proxy();
    const first = await kube.createServiceAccountKubeconfig(NS, "first");
    const second = await kube.createServiceAccountKubeconfig(NS, "second");
    for (const account of ["first", "second"]) {
      await bindClusterAdmin(`credentials-${account}`, {
        kind: "ServiceAccount",
        name: account,
        namespace: NS,
      });
    }
    // The pod's service account, under a folder of the test's own.
    const root = join(dir, "in-cluster");
    const accountDir = join(root, "var/run/secrets/kubernetes.io/serviceaccount");
    mkdirSync(accountDir, { recursive: true });
    writeFileSync(join(accountDir, "ca.crt"), kube.caPem);
    writeFileSync(join(accountDir, "token"), first.token);
    vi.stubEnv("KUBERNETES_SERVICE_HOST", "127.0.0.1");
    vi.stubEnv("KUBERNETES_SERVICE_PORT", String(via.port));

    const cluster = await started(
      await createKubeCluster({
        inCluster: true,
        serviceAccountPathPrefix: root,
        enableEndpointSlices: true,
        resyncMs: 0,
        backoff: { baseMs: 20, capMs: 200 },
      }),
    );
    await api.apply(
      service("before", {
        namespace: NS,
        ports: [{ port: 80, protocol: "TCP" }],
        clusterIP: "10.96.7.1",
      }),
    );
    await eventually(() => expect(cluster.services.get(NS, "before")).toBeDefined(), WAIT);

    // The kubelet rotates the token while the watches run; the old one stops being valid.
    writeFileSync(join(accountDir, "token"), second.token);
    await kube.request("DELETE", `/api/v1/namespaces/${NS}/serviceaccounts/first`);
    await eventually(async () => {
      const answer = await kube.request("GET", "/api/v1/pods?limit=1", undefined, {
        token: first.token,
      });
      expect(answer.status).toBe(401);
    }, WAIT);

    // client-node rereads the token file once its copy is a minute old; only Date moves. The
    // audit log's timestamps are the API server's, which the jump does not move.
    const rotatedAt = new Date();
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61_000);
    reconnect(via);
    await api.apply(
      service("after", {
        namespace: NS,
        ports: [{ port: 80, protocol: "TCP" }],
        clusterIP: "10.96.7.2",
      }),
    );
    await eventually(() => expect(cluster.services.get(NS, "after")).toBeDefined(), WAIT);
    // The watches resume from their last version (a relist only follows 410 Gone).
    const reads = readsBy(second.username, rotatedAt);
    expect(reads).toContain("watch 200");
    expect(reads.filter((r) => !r.endsWith(" 200"))).toEqual([]);
  });

  it("presents the client certificate rotated on disk from the next connection on", async () => {
    const { env: kube, api } = env();
    const via = await proxy();
    const pair = (user: string) => issueClientCertificate(kube.tempDir, user);
    const [alice, bob] = [pair("alice"), pair("bob")];
    await bindClusterAdmin("credentials-alice", {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "User",
      name: "alice",
    });
    await bindClusterAdmin("credentials-bob", {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "User",
      name: "bob",
    });
    const files = { cert: join(dir, "client.crt"), key: join(dir, "client.key") };
    const present = (p: { cert: string; key: string }) => {
      writeFileSync(files.cert, p.cert);
      writeFileSync(files.key, p.key);
    };
    const kubeconfigYaml = renderKubeconfig(`https://127.0.0.1:${via.port}`, kube.caPem, {
      name: "files",
      clientCertificatePem: "",
      clientKeyPem: "",
    })
      .replace(/client-certificate-data: .*/, `client-certificate: ${files.cert}`)
      .replace(/client-key-data: .*/, `client-key: ${files.key}`);
    expect(kubeconfigYaml).toContain(`client-key: ${files.key}`);

    present(alice);
    const startedAt = new Date();
    const cluster = await started(
      await createKubeCluster({
        kubeconfigYaml,
        enableEndpointSlices: true,
        resyncMs: 0,
        backoff: { baseMs: 20, capMs: 200 },
      }),
    );
    expect(readsBy("alice", startedAt)).toEqual(expect.arrayContaining(["list 200"]));

    // Rotated on disk, and the old certificate's user may no longer read anything.
    present(bob);
    await kube.request(
      "DELETE",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/credentials-alice",
    );
    const rotatedAt = new Date();
    reconnect(via);
    await api.apply(
      service("by-bob", {
        namespace: NS,
        ports: [{ port: 80, protocol: "TCP" }],
        clusterIP: "10.96.7.3",
      }),
    );
    await eventually(() => expect(cluster.services.get(NS, "by-bob")).toBeDefined(), WAIT);
    expect(readsBy("bob", rotatedAt)).toContain("watch 200");
    // A request with the old certificate would be alice's, refused.
    expect(readsBy("alice", rotatedAt)).toEqual([]);
  });
});

/** A client certificate for `user`, signed by the environment's CA, made with openssl. */
function issueClientCertificate(envDir: string, user: string): { cert: string; key: string } {
  const [key, csr, cert] = ["key", "csr", "crt"].map((ext) => join(dir, `${user}.${ext}`)) as [
    string,
    string,
    string,
  ];
  const run = (args: string[]) =>
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  run(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]);
  run(["req", "-new", "-key", key, "-subj", `/CN=${user}`, "-out", csr]);
  const ext = join(dir, `${user}.ext`);
  writeFileSync(ext, "basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n");
  run([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    join(envDir, "ca.crt"),
    "-CAkey",
    join(envDir, "ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    ext,
    "-out",
    cert,
  ]);
  return { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") };
}
