// Pods, EndpointSlices and metadata-only kinds are listed and watched as protobuf and decoded
// straight into what the backend keeps of them. On a real kube-apiserver, what the cluster
// backend holds after its first list, and after watched changes, must be exactly what the JSON
// of the same objects gives once projected.
import {
  createKubeCluster,
  type KubeCluster,
  type KubeClusterOptions,
  projectObject,
  RESOURCE_KINDS,
} from "@destination/k8s-discovery";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../src/api.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";

const NS = "protobuf-pods";
const IMAGE = "registry.k8s.io/pause:3.10";

/** A controller reference (the writer's type leaves out `controller`). */
const CONTROLLER = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  name: "web-1",
  uid: "0b0b0b0b-1111-2222-3333-444455556666",
  controller: true,
};

/** Pods that between them use every field the protobuf reader picks out. */
const PODS: KubeObject[] = [
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "meshed",
      namespace: NS,
      labels: { app: "web", "linkerd.io/control-plane-ns": "linkerd" },
      annotations: { note: 'quotes "and"\nlines é ☃ 😀', "config.linkerd.io/opaque-ports": "3306" },
      ownerReferences: [CONTROLLER],
      finalizers: ["example.com/keep"],
    },
    spec: {
      nodeName: "node-a",
      serviceAccountName: "web",
      hostname: "web-0",
      subdomain: "web",
      initContainers: [{ name: "init", image: IMAGE, ports: [{ containerPort: 9999 }] }],
      containers: [
        {
          name: "linkerd-proxy",
          image: IMAGE,
          ports: [{ name: "linkerd-proxy", containerPort: 4143 }],
          env: [
            { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
            { name: "FROM_FIELD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          ],
        },
        {
          name: "app",
          image: IMAGE,
          ports: [
            { name: "http", containerPort: 8080 },
            { name: "dns", containerPort: 53, protocol: "UDP" },
          ],
        },
      ],
    },
    status: {
      phase: "Running",
      podIP: "10.1.0.5",
      podIPs: [{ ip: "10.1.0.5" }, { ip: "fd00::5" }],
      hostIP: "192.168.0.10",
      hostIPs: [{ ip: "192.168.0.10" }],
      conditions: [{ type: "Ready", status: "True" }],
    },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "host-network", namespace: NS },
    spec: {
      nodeName: "node-b",
      hostNetwork: true,
      containers: [
        {
          name: "agent",
          image: IMAGE,
          ports: [{ containerPort: 7000, hostPort: 7000, hostIP: "192.168.0.11" }],
        },
      ],
    },
    status: { phase: "Running", podIP: "192.168.0.11", hostIP: "192.168.0.11" },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "pending", namespace: NS, generateName: "pending-" },
    spec: { containers: [{ name: "app", image: IMAGE }] },
  },
];

const SLICES: KubeObject[] = [
  {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "web-abc", namespace: NS, labels: { "kubernetes.io/service-name": "web" } },
    addressType: "IPv4",
    endpoints: [
      {
        addresses: ["10.1.0.5"],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: "web-0",
        nodeName: "node-a",
        zone: "zone-a",
        targetRef: {
          kind: "Pod",
          namespace: NS,
          name: "meshed",
          uid: "0b0b0b0b-1111-2222-3333-444455556666",
        },
        hints: { forZones: [{ name: "zone-a" }] },
      },
      { addresses: ["10.1.0.6"], conditions: { ready: false } },
    ],
    ports: [
      { name: "http", port: 8080, protocol: "TCP", appProtocol: "kubernetes.io/h2c" },
      { name: "no-number" },
    ],
  },
  {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: "empty", namespace: NS, labels: { "kubernetes.io/service-name": "empty" } },
    addressType: "IPv6",
    endpoints: [],
    ports: [],
  },
];

const REPLICA_SET: KubeObject = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: {
    name: "web-1",
    namespace: NS,
    labels: { app: "web" },
    annotations: { "deployment.kubernetes.io/revision": "2" },
  },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "app", image: IMAGE }] },
    },
  },
};

let ctx: IntegrationEnv | undefined;
let cluster: KubeCluster | undefined;
/** The encoding of each watch the backend opened, by resource plural. */
const watchEncodings = new Map<string, string[]>();
const ignore = () => {};
const logger: NonNullable<KubeClusterOptions["logger"]> = {
  debug(message, fields) {
    const plural = /^watching (\S+)$/.exec(message)?.[1];
    if (plural !== undefined && typeof fields?.encoding === "string") {
      watchEncodings.set(plural, [...(watchEncodings.get(plural) ?? []), fields.encoding]);
    }
  },
  info: ignore,
  warn: ignore,
  error: ignore,
};
beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.apply(...PODS, ...SLICES, REPLICA_SET);
  // One of them being deleted: a finalizer keeps it, with its deletion time and grace period.
  const res = await ctx.env.request(
    "DELETE",
    `/api/v1/namespaces/${NS}/pods/meshed?gracePeriodSeconds=30`,
  );
  expect(res.status).toBe(200);
  cluster = await createKubeCluster({
    kubeconfigPath: ctx.env.kubeconfigPath,
    enableEndpointSlices: true,
    resyncMs: 0,
    logger,
  });
  await cluster.start();
  await cluster.whenSynced();
});
afterAll(async () => {
  await cluster?.stop();
  await ctx?.stop();
});

describe("lists read as protobuf (real kube-apiserver)", () => {
  it("hold pods exactly as their JSON projects", async () => {
    for (const { metadata } of PODS) {
      const json = await ctx?.api.get("Pod", NS, metadata.name);
      expect(json, metadata.name).toBeDefined();
      const expected = projectObject({ ...(json as KubeObject), apiVersion: "v1", kind: "Pod" });
      expect(cluster?.pods.get(NS, metadata.name), metadata.name).toStrictEqual(expected);
    }
    const meshed = cluster?.pods.get(NS, "meshed");
    expect(meshed?.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meshed?.status?.podIPs).toEqual([{ ip: "10.1.0.5" }, { ip: "fd00::5" }]);
  });

  it("hold EndpointSlices exactly as their JSON projects", async () => {
    for (const { metadata } of SLICES) {
      const json = await ctx?.api.get("EndpointSlice", NS, metadata.name);
      const expected = projectObject({
        ...(json as KubeObject),
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
      });
      expect(cluster?.endpointSlices.get(NS, metadata.name), metadata.name).toStrictEqual(expected);
    }
  });

  it("hold metadata-only kinds as the metadata of their JSON", async () => {
    const json = (await ctx?.api.get("ReplicaSet", NS, "web-1")) as KubeObject;
    const { managedFields: _dropped, ...metadata } = json.metadata;
    const info = RESOURCE_KINDS.ReplicaSet;
    expect(cluster?.replicaSets.get(NS, "web-1")).toStrictEqual({
      apiVersion: `${info.group}/${info.version}`,
      kind: "ReplicaSet",
      metadata,
    });
  });
});

describe("watches read as protobuf (real kube-apiserver)", () => {
  it("are negotiated for the built-in kinds, and JSON stays for custom resources", async () => {
    await eventually(() => expect(watchEncodings.get("pods")).toBeDefined());
    await eventually(() => expect(watchEncodings.get("serviceprofiles")).toBeDefined());
    for (const plural of ["pods", "endpointslices", "services", "replicasets", "nodes"]) {
      expect(watchEncodings.get(plural), plural).toEqual(["protobuf"]);
    }
    expect(watchEncodings.get("serviceprofiles")).toEqual(["json"]);
  });

  it("keep watched pods, slices and metadata exactly as their JSON projects", async () => {
    const [meshed, hostNetwork] = PODS as [KubeObject, KubeObject, KubeObject];
    const relabelled = {
      ...hostNetwork,
      metadata: { ...hostNetwork.metadata, labels: { app: "agent", tier: "node" } },
    };
    const added: KubeObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "added", namespace: NS, annotations: { "linkerd.io/inject": "enabled" } },
      spec: {
        nodeName: "node-a",
        containers: [{ name: "app", image: IMAGE, ports: [{ name: "grpc", containerPort: 9090 }] }],
      },
    };
    const [web] = SLICES as [KubeObject];
    const split = { ...web, metadata: { ...web.metadata, name: "web-def" } };
    await ctx?.api.apply(relabelled, added, split, {
      ...REPLICA_SET,
      metadata: {
        ...REPLICA_SET.metadata,
        annotations: { "deployment.kubernetes.io/revision": "3" },
      },
    });
    await ctx?.api.delete("Pod", NS, "pending");

    const projected = async (kind: string, name: string) =>
      projectObject({
        ...((await ctx?.api.get(kind, NS, name)) as KubeObject),
        apiVersion: kind === "EndpointSlice" ? "discovery.k8s.io/v1" : "v1",
        kind,
      });
    for (const name of ["host-network", "added"]) {
      const expected = await projected("Pod", name);
      await eventually(() => expect(cluster?.pods.get(NS, name), name).toStrictEqual(expected));
    }
    const slice = await projected("EndpointSlice", "web-def");
    await eventually(() => expect(cluster?.endpointSlices.get(NS, "web-def")).toStrictEqual(slice));
    await eventually(() => expect(cluster?.pods.get(NS, "pending")).toBeUndefined());
    await eventually(() =>
      expect(cluster?.replicaSets.get(NS, "web-1")?.metadata.annotations).toEqual({
        "deployment.kubernetes.io/revision": "3",
      }),
    );
    // The pod being deleted is still there, untouched by the other writes.
    expect(cluster?.pods.get(NS, meshed.metadata.name)?.metadata.deletionTimestamp).toBeDefined();
  });
});
