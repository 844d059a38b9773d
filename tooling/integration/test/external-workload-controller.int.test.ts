// The ExternalWorkload controller against a real kube-apiserver: the slices it writes as
// Services and workloads change, and the Lease between replicas, each replica with a
// ServiceAccount of its own holding only the rules Linkerd's chart gives linkerd-destination,
// so the API server's audit log tells who wrote what. A poller lists the slices all along and
// the file fails if a Service ever had two slices where one holds every endpoint.
import type { EndpointSlice, Logger } from "@destination/core";
import {
  ExternalWorkloadController,
  LEASE_NAME,
  MANAGED_BY,
} from "@destination/external-workload-controller";
import { createKubeCluster, type KubeCluster } from "@destination/k8s-discovery";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import { spawnServer } from "../src/binary.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";

const NS = "shop";
const CONTROLLER_NS = "linkerd";

/**
 * linkerd-destination's ClusterRole in Linkerd's chart (destination-rbac.yaml), and the part of
 * linkerd-policy it is bound to (Servers), plus the access review k8s-discovery's startup makes.
 */
const DESTINATION_RULES = [
  { apiGroups: ["apps"], resources: ["replicasets"], verbs: ["list", "get", "watch"] },
  { apiGroups: ["batch"], resources: ["jobs"], verbs: ["list", "get", "watch"] },
  {
    apiGroups: [""],
    resources: ["pods", "endpoints", "services", "nodes"],
    verbs: ["list", "get", "watch"],
  },
  { apiGroups: ["linkerd.io"], resources: ["serviceprofiles"], verbs: ["list", "get", "watch"] },
  {
    apiGroups: ["workload.linkerd.io"],
    resources: ["externalworkloads"],
    verbs: ["list", "get", "watch"],
  },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    verbs: ["create", "get", "update", "patch"],
  },
  {
    apiGroups: ["discovery.k8s.io"],
    resources: ["endpointslices"],
    verbs: ["list", "get", "watch", "create", "update", "patch", "delete"],
  },
  { apiGroups: ["policy.linkerd.io"], resources: ["servers"], verbs: ["list", "get", "watch"] },
  {
    apiGroups: ["authorization.k8s.io"],
    resources: ["selfsubjectaccessreviews"],
    verbs: ["create"],
  },
];

interface Replica {
  readonly name: string;
  readonly cluster: KubeCluster;
  readonly controller: ExternalWorkloadController;
  readonly logs: string[];
  stop(options?: { releaseLease?: boolean }): Promise<void>;
}

let ctx: IntegrationEnv | undefined;
const replicas: Replica[] = [];
let polling = true;
let poller: Promise<void> | undefined;
/** The most slices any (Service, address type, ports) had at one time, and when. */
let mostSlices = { count: 0, at: "" };

function env(): IntegrationEnv {
  if (!ctx) throw new Error("no API server");
  return ctx;
}

async function startReplica(
  name: string,
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number },
): Promise<Replica> {
  const { kubeconfigPath } = await env().env.createServiceAccountKubeconfig(CONTROLLER_NS, name);
  await env().api.apply({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `ewc-${name}` },
    roleRef: {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      name: "ewc-linkerd-destination",
    },
    subjects: [{ kind: "ServiceAccount", name, namespace: CONTROLLER_NS }],
  } as KubeObject);
  const logs: string[] = [];
  const log = (level: string) => (message: string) => void logs.push(`${level} ${message}`);
  const logger: Logger = {
    debug: () => {},
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
  const cluster = await createKubeCluster({
    kubeconfigPath,
    enableEndpointSlices: true,
    resyncMs: 0,
  });
  const controller = new ExternalWorkloadController({
    cluster,
    api: cluster.api,
    hostname: name,
    controllerNamespace: CONTROLLER_NS,
    logger,
    ...(lease ? { lease } : {}),
  });
  await cluster.start();
  await cluster.whenSynced();
  controller.start();
  let stopped = false;
  const replica: Replica = {
    name,
    cluster,
    controller,
    logs,
    stop: async (options) => {
      if (stopped) return;
      stopped = true;
      await controller.stop(options);
      await cluster.stop();
    },
  };
  replicas.push(replica);
  return replica;
}

async function managedSlices(): Promise<EndpointSlice[]> {
  const res = await env().env.request<{ items: EndpointSlice[] }>(
    "GET",
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=${encodeURIComponent(`endpointslice.kubernetes.io/managed-by=${MANAGED_BY}`)}`,
  );
  if (res.status !== 200) throw new Error(`listing slices: ${res.status} ${res.text}`);
  return res.body.items;
}

const slicesOf = async (service: string) =>
  (await managedSlices()).filter(
    (s) => s.metadata.labels?.["kubernetes.io/service-name"] === service,
  );

async function pollForDuplicates(): Promise<void> {
  while (polling) {
    const slices = await managedSlices().catch(() => []);
    const groups = new Map<string, number>();
    for (const s of slices) {
      const key = JSON.stringify([
        s.metadata.labels?.["kubernetes.io/service-name"],
        s.addressType,
        s.ports,
      ]);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    for (const [key, count] of groups) {
      if (count > mostSlices.count) mostSlices = { count, at: key };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function lease(): Promise<{
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number };
}> {
  const res = await env().env.request<{ spec?: { holderIdentity?: string } }>(
    "GET",
    `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_NS}/leases/${LEASE_NAME}`,
  );
  return res.status === 200 ? res.body : {};
}

/** The ServiceAccounts that created, updated or deleted slices, per the audit log (the test's own admin writes left out). */
function sliceWriters(): Set<string> {
  const prefix = `system:serviceaccount:${CONTROLLER_NS}:`;
  const writers = new Set<string>();
  for (const verb of ["create", "update", "delete"]) {
    for (const event of env().env.auditEvents({
      verb,
      resource: "endpointslices",
      stage: "ResponseComplete",
    })) {
      const user = event.user.username;
      if (user.startsWith(prefix)) writers.add(user.slice(prefix.length));
    }
  }
  return writers;
}

const service = (name: string, spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: NS }, spec }) as KubeObject;

const workload = (
  name: string,
  options: { ip: string; labels: Record<string, string>; ports?: object[]; ready?: boolean },
): KubeObject =>
  ({
    apiVersion: "workload.linkerd.io/v1beta1",
    kind: "ExternalWorkload",
    metadata: { name, namespace: NS, labels: options.labels },
    spec: {
      meshTLS: {
        identity: `${name}.${NS}.serviceaccount.identity.linkerd.cluster.local`,
        serverName: `${name}.${NS}.cluster.local`,
      },
      ports: options.ports ?? [{ name: "http", port: 8080 }],
      workloadIPs: [{ ip: options.ip }],
    },
    status: {
      conditions: [
        {
          type: "Ready",
          status: (options.ready ?? true) ? "True" : "False",
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          reason: "test",
          message: "test",
        },
      ],
    },
  }) as KubeObject;

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.ensureNamespace(NS);
  await ctx.api.ensureNamespace(CONTROLLER_NS);
  await ctx.api.apply({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "ewc-linkerd-destination" },
    rules: DESTINATION_RULES,
  } as KubeObject);
  poller = pollForDuplicates();
  await startReplica("replica-a");
});

afterAll(async () => {
  polling = false;
  await poller;
  for (const replica of replicas.splice(0)) await replica.stop();
  await ctx?.stop();
});

describe("ExternalWorkload controller on a real API server", () => {
  it("writes the slice of a Service whose selector matches a workload, named target port resolved", async () => {
    const [svc] = await env().api.apply(
      service("web", {
        selector: { app: "web" },
        ports: [{ name: "http", port: 80, targetPort: "http" }],
      }),
    );
    await env().api.apply(
      workload("vm-1", {
        ip: "10.1.0.1",
        labels: { app: "web", "topology.kubernetes.io/zone": "zone-a" },
      }),
    );
    // The workload's status is applied after its spec, so the slice may first show it not ready.
    const [slice] = await eventually(async () => {
      const slices = await slicesOf("web");
      expect(slices).toHaveLength(1);
      expect(slices[0]?.endpoints?.[0]?.conditions?.ready).toBe(true);
      return slices;
    });
    expect(slice?.metadata.name).toMatch(/^linkerd-external-web-/);
    expect(slice?.metadata.labels).toMatchObject({
      "kubernetes.io/service-name": "web",
      "endpointslice.kubernetes.io/managed-by": "linkerd-external-workloads-controller",
    });
    expect(slice?.metadata.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "Service",
        name: "web",
        uid: svc?.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(slice?.addressType).toBe("IPv4");
    expect(slice?.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
    expect(slice?.endpoints).toEqual([
      {
        addresses: ["10.1.0.1"],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: {
          kind: "ExternalWorkload",
          namespace: NS,
          name: "vm-1",
          uid: expect.any(String),
        },
        zone: "zone-a",
      },
    ]);
  });

  it("follows the workload: readiness, address, a second workload, and removal", async () => {
    const labels = { app: "web", "topology.kubernetes.io/zone": "zone-a" };
    await env().api.apply(workload("vm-1", { ip: "10.1.0.1", labels, ready: false }));
    await eventually(async () =>
      expect((await slicesOf("web"))[0]?.endpoints?.[0]?.conditions).toEqual({
        ready: false,
        serving: false,
        terminating: false,
      }),
    );
    await env().api.apply(workload("vm-1", { ip: "10.1.0.9", labels, ready: true }));
    await eventually(async () =>
      expect((await slicesOf("web"))[0]?.endpoints?.[0]?.addresses).toEqual(["10.1.0.9"]),
    );
    await env().api.apply(workload("vm-2", { ip: "10.1.0.2", labels: { app: "web" } }));
    await eventually(async () => {
      const slices = await slicesOf("web");
      expect(slices).toHaveLength(1);
      expect(slices[0]?.endpoints?.map((e) => e.targetRef?.name).sort()).toEqual(["vm-1", "vm-2"]);
    });
    await env().api.delete("ExternalWorkload", NS, "vm-2");
    await eventually(async () =>
      expect((await slicesOf("web"))[0]?.endpoints?.map((e) => e.targetRef?.name)).toEqual([
        "vm-1",
      ]),
    );
    await env().api.delete("ExternalWorkload", NS, "vm-1");
    await eventually(async () => expect(await slicesOf("web")).toEqual([]));
  });

  it("follows the Service: a port change, a selector change, and a selector removed", async () => {
    await env().api.apply(
      workload("vm-3", {
        ip: "10.1.0.3",
        labels: { app: "api" },
        ports: [
          { name: "http", port: 8080 },
          { name: "admin", port: 9990 },
        ],
      }),
    );
    await env().api.apply(
      service("api", {
        selector: { app: "api" },
        ports: [{ name: "http", port: 80, targetPort: "http" }],
      }),
    );
    await eventually(async () =>
      expect((await slicesOf("api"))[0]?.ports).toEqual([
        { name: "http", port: 8080, protocol: "TCP" },
      ]),
    );
    await env().api.apply(
      service("api", {
        selector: { app: "api" },
        ports: [{ name: "http", port: 80, targetPort: "admin" }],
      }),
    );
    await eventually(async () => {
      const slices = await slicesOf("api");
      expect(slices).toHaveLength(1);
      expect(slices[0]?.ports).toEqual([{ name: "http", port: 9990, protocol: "TCP" }]);
    });
    await env().api.apply(
      service("api", {
        selector: { app: "nothing" },
        ports: [{ name: "http", port: 80, targetPort: "admin" }],
      }),
    );
    await eventually(async () => expect(await slicesOf("api")).toEqual([]));
    await env().api.apply(
      service("api", {
        selector: { app: "api" },
        ports: [{ name: "http", port: 80, targetPort: "admin" }],
      }),
    );
    await eventually(async () => expect(await slicesOf("api")).toHaveLength(1));
  });

  it("writes a slice again when someone deletes it", async () => {
    const [before] = await slicesOf("api");
    await env().api.delete("EndpointSlice", NS, before?.metadata.name ?? "");
    await eventually(async () => {
      const slices = await slicesOf("api");
      expect(slices).toHaveLength(1);
      expect(slices[0]?.metadata.name).not.toBe(before?.metadata.name);
    });
  });

  it("lets only the Lease holder write when two replicas run", async () => {
    const a = replicas[0];
    const b = await startReplica("replica-b");
    await env().api.apply(
      workload("vm-4", {
        ip: "10.1.0.4",
        labels: { app: "api" },
        ports: [{ name: "admin", port: 9990 }],
      }),
    );
    await eventually(async () => expect((await slicesOf("api"))[0]?.endpoints).toHaveLength(2));
    // Several retry periods of replica-b's campaign: it never takes the Lease from a live holder.
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await lease()).spec?.holderIdentity).toBe("replica-a");
    expect([a?.controller.isLeading, b.controller.isLeading]).toEqual([true, false]);
    expect([...sliceWriters()]).toEqual(["replica-a"]);
    expect(a?.logs).toContain("info replica-a acquired lease");
    expect(b.logs.filter((l) => l.includes("acquired lease"))).toEqual([]);
  });

  it("hands over to the other replica once the holder dies and its Lease expires (30 s)", async () => {
    const [a, b] = replicas;
    if (!a || !b) throw new Error("replicas missing");
    const before = await lease();
    await a.stop({ releaseLease: false });
    const died = Date.now();
    await eventually(() => expect(b.controller.isLeading).toBe(true), { timeoutMs: 60_000 });
    const tookMs = Date.now() - died;
    // It waits out the lease duration as it observed the last renewal (up to one retry period
    // before the death), and takes over within a couple of its own retry periods after that.
    expect(tookMs).toBeGreaterThanOrEqual(30_000 - 2_500);
    expect(tookMs).toBeLessThan(30_000 + 10_000);
    const after = await lease();
    expect(after.spec?.holderIdentity).toBe("replica-b");
    expect(after.spec?.leaseDurationSeconds).toBe(30);
    expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
    await env().api.apply(
      workload("vm-5", {
        ip: "10.1.0.5",
        labels: { app: "api" },
        ports: [{ name: "admin", port: 9990 }],
      }),
    );
    await eventually(async () => expect((await slicesOf("api"))[0]?.endpoints).toHaveLength(3));
    expect([...sliceWriters()].sort()).toEqual(["replica-a", "replica-b"]);
  }, 120_000);

  it("hands over at once when the holder stops and releases the Lease", async () => {
    const b = replicas[1];
    const c = await startReplica("replica-c");
    const before = await lease();
    await b?.stop();
    const released = Date.now();
    expect(b?.logs).toContain("info replica-b released lease");
    await eventually(() => expect(c.controller.isLeading).toBe(true), { timeoutMs: 20_000 });
    // Far sooner than the 30 s a Lease that was not released would hold.
    expect(Date.now() - released).toBeLessThan(10_000);
    expect((await lease()).spec).toMatchObject({
      holderIdentity: "replica-c",
      leaseDurationSeconds: 30,
      leaseTransitions: (before.spec?.leaseTransitions ?? 0) + 1,
    });
  });

  it("runs in the destination-server binary on a cluster backend, named by HOSTNAME", async () => {
    const c = replicas[2];
    await c?.stop();
    // The name spawnServer gives the process, as a pod's runtime sets HOSTNAME.
    const hostname = process.env.HOSTNAME || "destination-server-test";
    const server = await spawnServer([
      "--kubeconfig",
      env().env.kubeconfigPath,
      `-controller-namespace=${CONTROLLER_NS}`,
    ]);
    try {
      await eventually(async () => expect((await lease()).spec?.holderIdentity).toBe(hostname), {
        timeoutMs: 20_000,
      });
      await env().api.apply(
        workload("vm-6", {
          ip: "10.1.0.6",
          labels: { app: "api" },
          ports: [{ name: "admin", port: 9990 }],
        }),
      );
      await eventually(async () => expect((await slicesOf("api"))[0]?.endpoints).toHaveLength(4));
      const metrics = await (await fetch(`http://127.0.0.1:${server.adminPort}/metrics`)).text();
      expect(metrics).toMatch(
        /^workqueue_adds_total\{name="endpoints_controller_workqueue"\} [1-9]/m,
      );
    } finally {
      await server.stop();
    }
    expect((await lease()).spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
    expect(server.logs()).toContain(`${hostname} acquired lease`);
    expect(server.logs()).toContain(`${hostname} released lease`);
  });

  it("never had two slices for one Service where one holds every endpoint", () => {
    expect(mostSlices.count).toBe(1);
  });
});
