// destination-server end to end on the cluster backend: every object is written through the API
// of a real kube-apiserver (no controllers run: the test writes pod statuses and EndpointSlices
// itself, as the kubelet and the EndpointSlice controller would), and the streams are compared
// with exact proto JSON, as in apps/destination-server/test/*.e2e.test.ts.

import {
  CLUSTER_POD,
  clusterBasics,
  node,
  server as opaqueServer,
  pod,
  podEndpoint,
  replicaSet,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import {
  get,
  getProfile,
  ipv4,
  type StreamRecorder,
  sleep,
} from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { type ServerUnderTest, startServer } from "../src/server.js";

const NS = "emojivoto";
const WEB = "web-svc.emojivoto.svc.cluster.local";
// Endpoints carry their zone in the EndpointSlice (Get's `zone` label); GetProfile's endpoint
// labels leave it empty, as upstream.
const ZONE = "zone-a";
const BUDGET = { retryRatio: Math.fround(0.2), minRetriesPerSecond: 10, ttl: "10s" };
const identity = (sa: string, ns = NS) =>
  `${sa}.${ns}.serviceaccount.identity.linkerd.cluster.local`;
const tls = (sa: string, ns = NS) => ({
  dnsLikeIdentity: { name: identity(sa, ns) },
  serverName: { name: identity(sa, ns) },
});

const webPod = (name: string, ip: string) =>
  pod(name, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    labels: { "pod-template-hash": "5f86686c4d", app: "web" },
    replicaSet: "web-5f86686c4d",
    serviceAccountName: "web",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });

/** A meshed web pod's address as Get sends it with the default flags. */
const webAddr = (ip: string, name: string) => ({
  addr: { ip: { ipv4: ipv4(ip) }, port: 8080 },
  weight: 10000,
  metricLabels: {
    control_plane_ns: "linkerd",
    deployment: "web",
    pod: name,
    pod_template_hash: "5f86686c4d",
    serviceaccount: "web",
    zone: ZONE,
    zone_locality: "unknown",
  },
  tlsIdentity: tls("web"),
  protocolHint: { h2: {} },
});
const bareAddr = (ip: string, port = 8080) => ({ ip: { ipv4: ipv4(ip) }, port });
const webLabels = { namespace: NS, service: "web-svc" };
const webParent = {
  resource: { group: "core", kind: "Service", name: "web-svc", namespace: NS, port: 80 },
};
/** web-svc's profile while no ServiceProfile names it. */
const defaultWebProfile = {
  fullyQualifiedName: WEB,
  retryBudget: BUDGET,
  parentRef: webParent,
  profileRef: { resource: { group: "linkerd.io" } },
};

let ctx: IntegrationEnv | undefined;
let dst: ServerUnderTest | undefined;
const streams: StreamRecorder<never>[] = [];
const track = <S>(s: S) => {
  streams.push(s as StreamRecorder<never>);
  return s;
};

beforeAll(async () => {
  ctx = await startIntegrationEnv();
  await ctx.api.apply(
    ...clusterBasics(),
    node("node-a", { labels: { "topology.kubernetes.io/zone": ZONE } }),
    service("web-svc", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      clusterIP: "10.96.10.10",
    }),
    replicaSet("web-5f86686c4d", "web", { namespace: NS }),
    webPod("web-5f86686c4d-aaaaa", "10.244.1.10"),
    webPod("web-5f86686c4d-bbbbb", "10.244.1.11"),
    webPod("web-5f86686c4d-ccccc", "10.244.1.12"),
    // Two slices, as the EndpointSlice controller splits a service's endpoints.
    slice(
      "web-svc-x1",
      "web-svc",
      [podEndpoint("web-5f86686c4d-aaaaa", "10.244.1.10", { namespace: NS, zone: ZONE })],
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
    slice(
      "web-svc-x2",
      "web-svc",
      [podEndpoint("web-5f86686c4d-bbbbb", "10.244.1.11", { namespace: NS, zone: ZONE })],
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
  );
  dst = await startServer(ctx.env.kubeconfigPath);
});

afterAll(async () => {
  for (const s of streams) s.cancel();
  await dst?.close();
  await ctx?.stop();
});

function env() {
  if (!ctx || !dst) throw new Error("setup failed");
  return { api: ctx.api, client: dst.client };
}

/** How many Pod update events the server's watch has received so far. */
async function podUpdateEvents(): Promise<number> {
  if (!dst) throw new Error("setup failed");
  return (await dst.metric("k8s_watch_events_total", { kind: "Pod", type: "MODIFIED" })) ?? 0;
}

describe("destination-server on a real kube-apiserver", () => {
  it("Get: two slices; deleting one keeps the other's addresses", async () => {
    const { api, client } = env();
    const stream = track(get(client, `${WEB}:80`));
    expect(await stream.next()).toEqual({
      add: {
        addrs: [
          webAddr("10.244.1.10", "web-5f86686c4d-aaaaa"),
          webAddr("10.244.1.11", "web-5f86686c4d-bbbbb"),
        ],
        metricLabels: webLabels,
      },
    });

    await api.delete("EndpointSlice", NS, "web-svc-x1");
    expect(await stream.next()).toEqual({ remove: { addrs: [bareAddr("10.244.1.10")] } });

    // The remaining slice grows by one endpoint.
    await api.apply(
      slice(
        "web-svc-x2",
        "web-svc",
        [
          podEndpoint("web-5f86686c4d-bbbbb", "10.244.1.11", { namespace: NS, zone: ZONE }),
          podEndpoint("web-5f86686c4d-ccccc", "10.244.1.12", { namespace: NS, zone: ZONE }),
        ],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    expect(await stream.next()).toEqual({
      add: { addrs: [webAddr("10.244.1.12", "web-5f86686c4d-ccccc")], metricLabels: webLabels },
    });

    // An endpoint that turns not ready is removed.
    await api.apply(
      slice(
        "web-svc-x2",
        "web-svc",
        [
          podEndpoint("web-5f86686c4d-bbbbb", "10.244.1.11", { namespace: NS, zone: ZONE }),
          podEndpoint("web-5f86686c4d-ccccc", "10.244.1.12", {
            namespace: NS,
            zone: ZONE,
            ready: false,
          }),
        ],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    expect(await stream.next()).toEqual({ remove: { addrs: [bareAddr("10.244.1.12")] } });
    await sleep(500);
    expect(stream.unread).toBe(0);
    expect(stream.ended).toBeUndefined();
  });

  it("GetProfile: a ServiceProfile's routes, its update, and the default once it is deleted", async () => {
    const { api, client } = env();
    const profileRef = {
      resource: { group: "linkerd.io", kind: "ServiceProfile", name: WEB, namespace: NS },
    };
    await api.apply(
      serviceProfile(
        WEB,
        {
          routes: [
            {
              name: "GET /api/list",
              condition: { method: "GET", pathRegex: "/api/list" },
              isRetryable: true,
              timeout: "300ms",
            },
          ],
          retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: "15s" },
        },
        { namespace: NS },
      ),
    );
    const stream = track(getProfile(client, `${WEB}:80`));
    // The request can reach the server before the profile's watch event does: then the stream
    // opens on the default profile, and the applied one is the next message.
    expect(await stream.nextAfter([defaultWebProfile])).toEqual({
      fullyQualifiedName: WEB,
      routes: [
        {
          condition: {
            all: {
              matches: [{ method: { registered: "GET" } }, { path: { regex: "/api/list" } }],
            },
          },
          metricsLabels: { route: "GET /api/list" },
          isRetryable: true,
          timeout: "0.300s",
        },
      ],
      retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: "15s" },
      parentRef: webParent,
      profileRef,
    });

    await api.apply(
      serviceProfile(
        WEB,
        {
          routes: [
            {
              name: "vote",
              condition: { method: "POST" },
              responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
            },
          ],
        },
        { namespace: NS },
      ),
    );
    expect(await stream.next()).toEqual({
      fullyQualifiedName: WEB,
      routes: [
        {
          condition: { method: { registered: "POST" } },
          responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
          metricsLabels: { route: "vote" },
        },
      ],
      retryBudget: BUDGET,
      parentRef: webParent,
      profileRef,
    });

    await api.delete("ServiceProfile", NS, WEB);
    expect(await stream.next()).toEqual(defaultWebProfile);
  });

  it("GetProfile on a pod IP: the pod behind it, made opaque by a Server", async () => {
    const { api, client } = env();
    const stream = track(getProfile(client, "10.244.1.11:8080"));
    const endpoint = {
      addr: bareAddr("10.244.1.11"),
      weight: 10000,
      metricLabels: {
        control_plane_ns: "linkerd",
        deployment: "web",
        namespace: NS,
        pod: "web-5f86686c4d-bbbbb",
        pod_template_hash: "5f86686c4d",
        serviceaccount: "web",
        zone: "",
      },
      tlsIdentity: tls("web"),
      protocolHint: { h2: {} },
    };
    expect(await stream.next()).toEqual({ retryBudget: BUDGET, endpoint });

    await api.apply(
      opaqueServer("web-opaque", { namespace: NS, podSelector: { app: "web" }, port: "http" }),
    );
    expect(await stream.next()).toEqual({
      opaqueProtocol: true,
      retryBudget: BUDGET,
      endpoint: {
        ...endpoint,
        protocolHint: { opaque: {}, opaqueTransport: { inboundPort: 4143 } },
      },
    });

    await api.delete("Server", NS, "web-opaque");
    expect(await stream.next()).toEqual({ retryBudget: BUDGET, endpoint });
  });

  it("GetProfile on a host port: loses the deleted pod, regains the new one once Running", async () => {
    const { api, client } = env();
    const exporter = (name: string, phase = "Running") =>
      pod(name, {
        ...CLUSTER_POD,
        namespace: "monitoring",
        ip: phase === "Running" ? "10.244.1.20" : undefined,
        labels: {},
        ports: [{ name: "metrics", containerPort: 9100, protocol: "TCP", hostPort: 9100 }],
        phase: phase,
        hostIp: "172.18.0.2",
      });
    const withPod = (name: string) => ({
      retryBudget: BUDGET,
      endpoint: {
        addr: bareAddr("172.18.0.2", 9100),
        weight: 10000,
        metricLabels: {
          control_plane_ns: "linkerd",
          namespace: "monitoring",
          pod: name,
          serviceaccount: "default",
          zone: "",
        },
        tlsIdentity: tls("default", "monitoring"),
        protocolHint: { h2: {} },
      },
    });
    const withoutPod = {
      retryBudget: BUDGET,
      endpoint: { addr: bareAddr("172.18.0.2", 9100), weight: 10000 },
    };
    await api.apply(exporter("node-exporter-7hx4c"));
    const stream = track(getProfile(client, "172.18.0.2:9100"));
    // The request can reach the server before the pod's watch event does: then the first answer
    // has no pod, and the pod's arrival is the next message.
    expect(await stream.nextAfter([withoutPod])).toEqual(withPod("node-exporter-7hx4c"));

    await api.delete("Pod", "monitoring", "node-exporter-7hx4c");
    expect(await stream.next()).toEqual(withoutPod);

    // The DaemonSet's replacement: created (no status), bound and Pending on the node's IP,
    // then Running. Only a Running pod is attached to the address.
    // The quiet window starts once the server has seen the Pending status, not at the write.
    const podUpdatesSeen = await podUpdateEvents();
    await api.create(exporter("node-exporter-9k2lm", "Pending"));
    await api.applyStatus(exporter("node-exporter-9k2lm", "Pending"));
    await eventually(async () => expect(await podUpdateEvents()).toBeGreaterThan(podUpdatesSeen));
    await sleep(1000);
    expect(stream.unread).toBe(0);
    await api.applyStatus(exporter("node-exporter-9k2lm", "Running"));
    expect(await stream.next()).toEqual(withPod("node-exporter-9k2lm"));
    await sleep(500);
    expect(stream.unread).toBe(0);
  });
});
