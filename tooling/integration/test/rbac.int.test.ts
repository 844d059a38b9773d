// deploy/ on a real kube-apiserver: every manifest passes a server-side dry run, and the
// destination-server binary, run with the deployment's flags and a token of the deployment's
// own ServiceAccount, syncs and serves with nothing more than deploy/rbac.yaml grants
// (get/list/watch, and create on selfsubjectaccessreviews).
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseManifests } from "@destination/k8s-env";
import {
  CLUSTER_POD,
  clusterBasics,
  namespace,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { connect, get, getProfile, ipv4 } from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import { type SpawnedServer, spawnServer } from "../src/binary.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";

const DEPLOY = fileURLToPath(new URL("../../../deploy/", import.meta.url));

function deployManifests(): { file: string; objects: KubeObject[] }[] {
  return readdirSync(DEPLOY)
    .filter((f) => f.endsWith(".yaml") && f !== "kustomization.yaml")
    .sort()
    .map((file) => ({
      file,
      objects: parseManifests(readFileSync(`${DEPLOY}${file}`, "utf8")) as KubeObject[],
    }));
}

const all = () => deployManifests().flatMap((m) => m.objects);
const find = (kind: string) => {
  const obj = all().find((o) => o.kind === kind);
  if (!obj) throw new Error(`deploy/ has no ${kind}`);
  return obj;
};

let ctx: IntegrationEnv | undefined;
let spawned: SpawnedServer | undefined;
beforeAll(async () => {
  ctx = await startIntegrationEnv();
  // deploy/README.md's prerequisite: the namespace exists (the CRDs are installed by k8s-env).
  await ctx.api.apply(namespace(find("ServiceAccount").metadata.namespace ?? "linkerd"));
});
afterAll(async () => {
  await spawned?.stop();
  await ctx?.stop();
});

describe("deploy/ manifests (real kube-apiserver)", () => {
  it("pass a server-side dry run, as create and as apply, and store nothing", async () => {
    if (!ctx) throw new Error("no API server");
    const { api } = ctx;
    const manifests = deployManifests();
    expect(manifests.map((m) => m.file)).toEqual([
      "deployment.yaml",
      "pdb.yaml",
      "rbac.yaml",
      "service.yaml",
      "serviceaccount.yaml",
    ]);
    const kinds: string[] = [];
    for (const { file, objects } of manifests) {
      for (const obj of objects) {
        const what = `${file}: ${obj.kind} ${obj.metadata.name}`;
        kinds.push(obj.kind);
        const created = await api.dryRunCreate(obj);
        expect(created.status, `${what}: ${created.text.slice(0, 300)}`).toBe(201);
        const applied = await api.dryRunApply(obj);
        expect(applied.status, `${what}: ${applied.text.slice(0, 300)}`).toBe(201);
        expect(await api.get(obj.kind, obj.metadata.namespace, obj.metadata.name), what).toBe(
          undefined,
        );
      }
    }
    expect(kinds.sort()).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "Deployment",
      "PodDisruptionBudget",
      "Role",
      "RoleBinding",
      "Service",
      "ServiceAccount",
    ]);
  });

  it("keep the budget, the spread and the anti-affinity on the Deployment's own pods", () => {
    // A selector that misses the pods protects nothing, and nothing reports it.
    const deployment = find("Deployment").spec as {
      replicas: number;
      template: {
        metadata: { labels: Record<string, string> };
        spec: {
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: {
                podAffinityTerm: { labelSelector: { matchLabels: Record<string, string> } };
              }[];
            };
          };
          topologySpreadConstraints: {
            topologyKey: string;
            labelSelector: { matchLabels: Record<string, string> };
          }[];
        };
      };
    };
    const labels = deployment.template.metadata.labels;
    const pdb = find("PodDisruptionBudget").spec as {
      maxUnavailable: number;
      selector: { matchLabels: Record<string, string> };
    };
    const selectors = [
      pdb.selector.matchLabels,
      ...deployment.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution.map(
        (t) => t.podAffinityTerm.labelSelector.matchLabels,
      ),
      ...deployment.template.spec.topologySpreadConstraints.map((c) => c.labelSelector.matchLabels),
    ];
    for (const selector of selectors) expect(labels).toMatchObject(selector);
    expect(deployment.template.spec.topologySpreadConstraints.map((c) => c.topologyKey)).toEqual([
      "kubernetes.io/hostname",
      "topology.kubernetes.io/zone",
    ]);
    // A drain may take one replica; the others keep serving.
    expect(pdb.maxUnavailable).toBeLessThan(deployment.replicas);
  });

  it("lets destination-server sync and serve with the ServiceAccount's read-only role", async () => {
    if (!ctx) throw new Error("no API server");
    const { api, env } = ctx;
    const account = find("ServiceAccount");
    const ns = account.metadata.namespace ?? "linkerd";
    await api.apply(
      account,
      find("ClusterRole"),
      find("ClusterRoleBinding"),
      find("Role"),
      find("RoleBinding"),
    );
    const sa = await env.createServiceAccountKubeconfig(ns, account.metadata.name);

    // The role is read-only: the account may list pods, and may not create them.
    const denied = await env.request(
      "POST",
      "/api/v1/namespaces/shop/pods",
      JSON.stringify(
        pod("x", { ...CLUSTER_POD, namespace: "shop", ip: "10.244.9.9", labels: {}, ports: [] }),
      ),
      { token: sa.token },
    );
    expect(denied.status).toBe(403);

    await api.apply(
      ...clusterBasics(),
      service("cart", {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
        clusterIP: "10.96.3.10",
      }),
      replicaSet("cart-6d8f", "cart", { namespace: "shop" }),
      pod("cart-6d8f-x1", {
        ...CLUSTER_POD,
        namespace: "shop",
        ip: "10.244.3.1",
        labels: { "pod-template-hash": "6d8f" },
        replicaSet: "cart-6d8f",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
      slice("cart-1", "cart", [podEndpoint("cart-6d8f-x1", "10.244.3.1", { namespace: "shop" })], {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
      // Its ReplicaSet is in no cache (it does not exist): GetProfile reads it from the API.
      pod("cart-0a1b-y1", {
        ...CLUSTER_POD,
        namespace: "shop",
        ip: "10.244.3.2",
        labels: { "pod-template-hash": "0a1b" },
        replicaSet: "cart-0a1b",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );

    // The deployment's own flags, on loopback ports.
    const container = (
      find("Deployment").spec as {
        template: { spec: { containers: { args: string[] }[] } };
      }
    ).template.spec.containers[0];
    const args = (container?.args ?? []).filter(
      (a) => !/^--?(addr|metrics-addr|log-format)=/.test(a),
    );
    expect(args).toContain("-outbound-transport-mode=transport-header");
    const startedAt = new Date();
    spawned = await spawnServer([...args, "--kubeconfig", sa.kubeconfigPath]);
    const client = connect(spawned.grpcPort);
    try {
      const stream = get(client, "cart.shop.svc.cluster.local:8080");
      expect(await stream.next()).toEqual({
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: ipv4("10.244.3.1") }, port: 8080 },
              weight: 10000,
              // -meshed-http2-client-params from the deployment's flags.
              http2: { keepAlive: { interval: "10s", timeout: "3s", whileIdle: true } },
              metricLabels: {
                control_plane_ns: "linkerd",
                deployment: "cart",
                pod: "cart-6d8f-x1",
                pod_template_hash: "6d8f",
                serviceaccount: "default",
                zone: "",
                zone_locality: "unknown",
              },
              tlsIdentity: {
                dnsLikeIdentity: {
                  name: "default.shop.serviceaccount.identity.linkerd.cluster.local",
                },
                serverName: { name: "default.shop.serviceaccount.identity.linkerd.cluster.local" },
              },
              // transport-header mode: meshed ports are reached through the proxy's inbound port.
              protocolHint: { h2: {}, opaqueTransport: { inboundPort: 4143 } },
            },
          ],
          metricLabels: { namespace: "shop", service: "cart" },
        },
      });
      stream.cancel();
      const profile = getProfile(client, "10.244.3.2:8080");
      expect(await profile.next()).toMatchObject({ endpoint: { addr: { port: 8080 } } });
      profile.cancel();
    } finally {
      client.close();
    }

    // What the account did: reads, and the startup access reviews; nothing was refused.
    // (A watch still open has only its ResponseStarted event.)
    const events = env
      .auditEvents({ username: sa.username })
      .filter((e) => new Date(e.requestReceivedTimestamp) >= startedAt);
    const verbs = new Set(
      events.map((e) =>
        e.verb === "create" ? `create ${e.objectRef?.resource}` : (e.verb as string),
      ),
    );
    expect([...verbs].sort()).toEqual(
      expect.arrayContaining(["create selfsubjectaccessreviews", "list", "watch"]),
    );
    for (const verb of verbs) {
      expect(["get", "list", "watch", "create selfsubjectaccessreviews"]).toContain(verb);
    }
    // The one direct read: the missing ReplicaSet, allowed and not found.
    const ownerReads = events.filter(
      (e) => e.verb === "get" && e.objectRef?.resource === "replicasets",
    );
    expect(ownerReads.map((e) => `${e.objectRef?.name} ${e.responseStatus?.code}`)).toContain(
      "cart-0a1b 404",
    );
    const refused = events.filter(
      (e) => (e.responseStatus?.code ?? 200) >= 400 && !ownerReads.includes(e),
    );
    expect(refused.map((e) => `${e.verb} ${e.requestURI} ${e.responseStatus?.code}`)).toEqual([]);
    const listed = new Set(
      events.filter((e) => e.verb === "list").map((e) => e.objectRef?.resource),
    );
    expect([...listed]).toEqual(
      expect.arrayContaining([
        "endpointslices",
        "externalworkloads",
        "jobs",
        "nodes",
        "pods",
        "replicasets",
        "servers",
        "serviceprofiles",
        "services",
      ]),
    );
  });
});
