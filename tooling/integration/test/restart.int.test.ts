// kube-apiserver restarts while destination-server (cluster backend, default backoff) streams
// Get and GetProfile: the streams stay open, changes made after the restart arrive, and the
// list/watch loops reconnect within their backoff, as the audit log counts.

import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  replicaSet,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { get, getProfile, ipv4, sleep } from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxRequestsAfterRestart } from "../src/backoff-bound.js";
import { type IntegrationEnv, startIntegrationEnv } from "../src/env.js";
import { type ServerUnderTest, startServer } from "../src/server.js";

const NS = "emojivoto";
const WEB = "web-svc.emojivoto.svc.cluster.local";
const USER_AGENT = "destination/k8s-discovery";
const identity = (sa: string) => `${sa}.${NS}.serviceaccount.identity.linkerd.cluster.local`;
const BUDGET = { retryRatio: Math.fround(0.2), minRetriesPerSecond: 10, ttl: "10s" };

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
const webSlice = (endpoints: { ip: string; pod: string }[]) =>
  slice(
    "web-svc-1",
    "web-svc",
    endpoints.map((e) => podEndpoint(e.pod, e.ip, { namespace: NS })),
    { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
  );
const meshedAddr = (ip: string, name: string) => ({
  addr: { ip: { ipv4: ipv4(ip) }, port: 8080 },
  weight: 10000,
  metricLabels: {
    control_plane_ns: "linkerd",
    deployment: "web",
    pod: name,
    pod_template_hash: "5f86686c4d",
    serviceaccount: "web",
    zone: "",
    zone_locality: "unknown",
  },
  tlsIdentity: {
    dnsLikeIdentity: { name: identity("web") },
    serverName: { name: identity("web") },
  },
  protocolHint: { h2: {} },
});
const profileRoute = (name: string, method: string) => ({
  condition: { method: { registered: method } },
  metricsLabels: { route: name },
});

let ctx: IntegrationEnv | undefined;
let dst: ServerUnderTest | undefined;
beforeAll(async () => {
  ctx = await startIntegrationEnv();
});
afterAll(async () => {
  await dst?.close();
  await ctx?.stop();
});

describe("kube-apiserver restart under open streams", () => {
  it("keeps Get and GetProfile streams open, delivers later changes, reconnects with backoff", async () => {
    if (!ctx) throw new Error("no API server");
    const { env, api } = ctx;
    await api.apply(
      ...clusterBasics(),
      service("web-svc", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
        clusterIP: "10.96.10.10",
      }),
      replicaSet("web-5f86686c4d", "web", { namespace: NS }),
      webPod("web-5f86686c4d-aaaaa", "10.244.1.10"),
      pod("worker-1", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.2.1",
        labels: {},
        ports: [{ name: "jobs", containerPort: 9000, protocol: "TCP" }],
      }),
      webSlice([{ ip: "10.244.1.10", pod: "web-5f86686c4d-aaaaa" }]),
      serviceProfile(
        WEB,
        { routes: [{ name: "GET /", condition: { method: "GET" } }] },
        { namespace: NS },
      ),
    );
    dst = await startServer(env.kubeconfigPath);
    const endpoints = get(dst.client, `${WEB}:80`);
    const profile = getProfile(dst.client, `${WEB}:80`);
    const worker = getProfile(dst.client, "10.244.2.1:9000");

    expect(await endpoints.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.1.10", "web-5f86686c4d-aaaaa")],
        metricLabels: { namespace: NS, service: "web-svc" },
      },
    });
    const profileMessage = (route: ReturnType<typeof profileRoute>) => ({
      fullyQualifiedName: WEB,
      routes: [route],
      retryBudget: BUDGET,
      parentRef: {
        resource: { group: "core", kind: "Service", name: "web-svc", namespace: NS, port: 80 },
      },
      profileRef: {
        resource: { group: "linkerd.io", kind: "ServiceProfile", name: WEB, namespace: NS },
      },
    });
    expect(await profile.next()).toEqual(profileMessage(profileRoute("GET /", "GET")));
    const workerAddr = { ip: { ipv4: ipv4("10.244.2.1") }, port: 9000 };
    expect(await worker.next()).toEqual({
      retryBudget: BUDGET,
      endpoint: {
        addr: workerAddr,
        weight: 10000,
        metricLabels: {
          control_plane_ns: "linkerd",
          namespace: NS,
          pod: "worker-1",
          serviceaccount: "default",
          zone: "",
        },
        tlsIdentity: {
          dnsLikeIdentity: { name: identity("default") },
          serverName: { name: identity("default") },
        },
        protocolHint: { h2: {} },
      },
    });

    const restartedAt = new Date();
    await env.restartApiServer();
    const readyAt = new Date();

    // Changes made after the restart reach the open streams.
    await api.apply(webPod("web-5f86686c4d-bbbbb", "10.244.1.11"));
    await api.apply(
      webSlice([
        { ip: "10.244.1.10", pod: "web-5f86686c4d-aaaaa" },
        { ip: "10.244.1.11", pod: "web-5f86686c4d-bbbbb" },
      ]),
    );
    expect(await endpoints.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.1.11", "web-5f86686c4d-bbbbb")],
        metricLabels: { namespace: NS, service: "web-svc" },
      },
    });
    await api.apply(
      serviceProfile(
        WEB,
        { routes: [{ name: "POST /", condition: { method: "POST" } }] },
        { namespace: NS },
      ),
    );
    expect(await profile.next()).toEqual(profileMessage(profileRoute("POST /", "POST")));
    await api.delete("Pod", NS, "worker-1");
    expect(await worker.next()).toEqual({
      retryBudget: BUDGET,
      endpoint: { addr: workerAddr, weight: 10000 },
    });

    // Let any runaway reconnect loop show itself, then count.
    await sleep(10_000);
    for (const stream of [endpoints, profile, worker]) {
      expect(stream.ended).toBeUndefined();
      expect(stream.unread).toBe(0);
    }
    const watches = env
      .auditEvents({ verb: "watch", stage: "ResponseStarted", userAgent: USER_AGENT })
      .filter((e) => new Date(e.requestReceivedTimestamp) >= restartedAt);
    const perResource = new Map<string, number>();
    for (const e of watches) {
      const r = e.objectRef?.resource ?? "?";
      perResource.set(r, (perResource.get(r) ?? 0) + 1);
    }
    // The bound: each loop backs off (k8s-discovery's default: full jitter below
    // min(30 s, 250 ms × 2^attempt), reset only after a healthy watch). Attempts made while the
    // server is down are refused and never reach the audit log; those made once it answers but
    // before it is ready (CRD paths answer 503 for a moment) fail and are audited, then one
    // succeeds. That window lies within the restart (SIGTERM to /readyz ok, plus 1 s for
    // requests in flight), so per resource at most maxRequestsAfterRestart(restart) watches.
    // A loop without backoff would send hundreds.
    const windowMs = readyAt.getTime() - restartedAt.getTime() + 1000;
    const bound = maxRequestsAfterRestart(windowMs);
    console.log(
      `[restart] restart took ${(windowMs - 1000) / 1000} s; watches per resource since: ` +
        `${JSON.stringify(Object.fromEntries([...perResource].sort()))}; bound ${bound}`,
    );
    // Every loop reconnected (the nine cached kinds; a watch the server adds counts too).
    expect([...perResource.keys()]).toEqual(
      expect.arrayContaining([
        "endpointslices",
        "externalworkloads",
        "jobs",
        "nodes",
        "pods",
        "replicasets",
        "serviceprofiles",
        "servers",
        "services",
      ]),
    );
    for (const [resource, count] of perResource) {
      const codes = watches
        .filter((e) => e.objectRef?.resource === resource)
        .map((e) => e.responseStatus?.code);
      expect(count, `${resource}: ${codes.join(", ")}`).toBeLessThanOrEqual(bound);
    }
    // The watches resumed from their resourceVersions: nothing had to be listed again.
    expect(await dst.metric("k8s_relists_total")).toBeUndefined();
    for (const s of [endpoints, profile, worker]) s.cancel();
  });
});
