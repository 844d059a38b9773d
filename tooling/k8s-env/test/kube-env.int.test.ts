// Self-test of the environment: real etcd + kube-apiserver. The first run builds the binaries.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type KubeEnv, startKubeEnv } from "../src/index.js";

const NS = "k8s-env-test";
const SP_NAME = "web.k8s-env-test.svc.cluster.local";
const SP_PATH = `/apis/linkerd.io/v1alpha2/namespaces/${NS}/serviceprofiles`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface ObjectList {
  metadata: { resourceVersion: string };
  items: { metadata: { name: string; uid: string; resourceVersion: string } }[];
}

describe("startKubeEnv", () => {
  let env: KubeEnv;
  let startMs = 0;

  beforeAll(async () => {
    const t0 = Date.now();
    env = await startKubeEnv();
    startMs = Date.now() - t0;
    console.log(`[k8s-env] started ${env.apiServerVersion} in ${startMs}ms at ${env.server}`);
  }, 1_800_000);

  afterAll(async () => {
    await env?.stop();
  });

  it("serves the API over loopback TLS with an admin kubeconfig and the Linkerd CRDs", async () => {
    expect(env.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(env.etcdEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.apiServerVersion).toMatch(/^v1\.\d+\.\d+$/);
    const kubeconfig = parse(readFileSync(env.kubeconfigPath, "utf8"));
    expect(kubeconfig.clusters[0].cluster.server).toBe(env.server);

    for (const [gv, plural] of [
      ["linkerd.io/v1alpha2", "serviceprofiles"],
      ["linkerd.io/v1alpha1", "serviceprofiles"],
      ["policy.linkerd.io/v1beta3", "servers"],
      ["workload.linkerd.io/v1beta1", "externalworkloads"],
      ["workload.linkerd.io/v1alpha1", "externalworkloads"],
    ] as const) {
      const res = await env.request<{ resources: { name: string }[] }>("GET", `/apis/${gv}`);
      expect(res.status, gv).toBe(200);
      expect(res.body.resources.map((r) => r.name)).toContain(plural);
    }
    // Unauthenticated requests are anonymous and RBAC forbids them.
    const anon = await env.request("GET", "/api/v1/namespaces", undefined, {
      token: "not-a-token",
    });
    expect(anon.status).toBe(401);
  });

  it("creates a namespace and a ServiceProfile, lists it, and keeps it across an API server restart", async () => {
    const ns = await env.request("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NS },
    });
    expect(ns.status).toBe(201);
    const created = await env.request<{ metadata: { uid: string } }>("POST", SP_PATH, {
      apiVersion: "linkerd.io/v1alpha2",
      kind: "ServiceProfile",
      metadata: { name: SP_NAME, namespace: NS },
      spec: {
        routes: [
          {
            name: "GET /books",
            condition: { method: "GET", pathRegex: "/books" },
            responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
            isRetryable: true,
            timeout: "300ms",
          },
        ],
        retryBudget: { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: "10s" },
        dstOverrides: [{ authority: "web-v2.k8s-env-test.svc.cluster.local:80", weight: "500m" }],
      },
    });
    expect(created.status).toBe(201);

    const list = await env.request<ObjectList>("GET", SP_PATH);
    expect(list.status).toBe(200);
    expect(list.body.items.map((i) => i.metadata.name)).toEqual([SP_NAME]);

    // The schema is enforced: a status code outside 100..599 is rejected.
    const bad = await env.request("POST", SP_PATH, {
      apiVersion: "linkerd.io/v1alpha2",
      kind: "ServiceProfile",
      metadata: { name: "bad", namespace: NS },
      spec: {
        routes: [
          { name: "x", condition: {}, responseClasses: [{ condition: { status: { min: 42 } } }] },
        ],
      },
    });
    expect(bad.status).toBe(422);

    const before = env.pids.kubeApiServer;
    const t0 = Date.now();
    await env.restartApiServer();
    console.log(`[k8s-env] restartApiServer took ${Date.now() - t0}ms`);
    expect(env.pids.kubeApiServer).not.toBe(before);
    expect(alive(before)).toBe(false);

    const again = await env.request<{ metadata: { uid: string } }>("GET", `${SP_PATH}/${SP_NAME}`);
    expect(again.status).toBe(200);
    expect(again.body.metadata.uid).toBe(created.body.metadata.uid);
  });

  it("applies YAML manifests (Server, ExternalWorkload) with server-side apply", async () => {
    const applied = await env.apply(`
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata: {name: web-http, namespace: ${NS}}
spec:
  podSelector: {matchLabels: {app: web}}
  port: http
  proxyProtocol: HTTP/1
---
apiVersion: workload.linkerd.io/v1beta1
kind: ExternalWorkload
metadata: {name: vm-1, namespace: ${NS}, labels: {app: web}}
spec:
  meshTLS: {identity: "spiffe://root.linkerd.cluster.local/vm-1", serverName: vm-1.cluster.local}
  ports: [{name: http, port: 8080}]
  workloadIPs: [{ip: 192.0.2.10}]
`);
    expect(applied.map((o) => o.kind)).toEqual(["Server", "ExternalWorkload"]);
    const server = applied[0] as unknown as { spec: { accessPolicy: string } };
    expect(server.spec.accessPolicy).toBe("deny"); // schema default
    // Applying again is an update, not a conflict.
    await env.apply(applied.slice(0, 1));
  });

  it("makes watches from a revision older than an etcd compaction fail with 410 Gone", async () => {
    const list = await env.request<ObjectList>("GET", SP_PATH);
    const oldRv = list.body.metadata.resourceVersion;
    for (let i = 0; i < 3; i++) {
      const res = await env.request("PATCH", `${SP_PATH}/${SP_NAME}`, {
        metadata: { labels: { n: String(i) } },
      });
      expect(res.status).toBe(200);
    }
    const revision = await env.compactEtcd();
    expect(revision).toBeGreaterThan(Number(oldRv));
    // Compacting again at the same revision is harmless.
    await env.compactEtcd();

    const watch = await env.request(
      "GET",
      `${SP_PATH}?watch=1&resourceVersion=${oldRv}&timeoutSeconds=5`,
      undefined,
      { timeoutMs: 15_000 },
    );
    const gone = watch.status === 410 || /"code":410/.test(watch.text);
    expect(gone, `${watch.status} ${watch.text.slice(0, 300)}`).toBe(true);

    // The audit log records the watch (ResponseStarted for long-running requests).
    await expect
      .poll(
        () => env.auditEvents({ verb: "watch", resource: "serviceprofiles", namespace: NS }).length,
        {
          timeout: 5000,
        },
      )
      .toBeGreaterThan(0);
  });

  it("issues ServiceAccount tokens whose access RBAC governs", async () => {
    const sa = await env.createServiceAccountKubeconfig(NS, "reader");
    expect(sa.username).toBe(`system:serviceaccount:${NS}:reader`);
    expect(parse(readFileSync(sa.kubeconfigPath, "utf8")).users[0].user.token).toBe(sa.token);

    const denied = await env.request("GET", SP_PATH, undefined, { token: sa.token });
    expect(denied.status).toBe(403);

    await env.apply([
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: "sp-reader", namespace: NS },
        rules: [
          {
            apiGroups: ["linkerd.io"],
            resources: ["serviceprofiles"],
            verbs: ["get", "list", "watch"],
          },
        ],
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "sp-reader", namespace: NS },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "sp-reader" },
        subjects: [{ kind: "ServiceAccount", name: "reader", namespace: NS }],
      },
    ]);
    await expect
      .poll(
        async () => (await env.request("GET", SP_PATH, undefined, { token: sa.token })).status,
        {
          timeout: 10_000,
        },
      )
      .toBe(200);
    expect(
      env
        .auditEvents({ username: sa.username, verb: "list", stage: "ResponseComplete" })
        .some((e) => e.responseStatus?.code === 403),
    ).toBe(true);
  });

  it("stop() leaves no process and no temp dir behind", async () => {
    const { etcd, kubeApiServer } = env.pids;
    const dir = env.tempDir;
    expect(alive(etcd) && alive(kubeApiServer)).toBe(true);
    await env.stop();
    await env.stop(); // idempotent
    expect(alive(etcd)).toBe(false);
    expect(alive(kubeApiServer)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
