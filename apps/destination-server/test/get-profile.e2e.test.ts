import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  pod,
  replicaSet,
  service,
  serviceProfile,
} from "@destination/test-support/builders";
import { getProfile, ipv4 } from "@destination/test-support/server";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_BUDGET, tlsIdentityOf } from "./support/expected.js";
import { pgCluster } from "./support/pg-cluster.js";
import { serverPerTest } from "./support/server-per-test.js";

const NS = "emojivoto";
const WEB_FQN = "web-svc.emojivoto.svc.cluster.local";
const webParent = (port: number) => ({
  resource: { group: "core", kind: "Service", name: "web-svc", namespace: NS, port },
});
/** web-svc:80's default profile (no ServiceProfile, so profile_ref holds only the group). */
const webDefaultProfile = {
  fullyQualifiedName: WEB_FQN,
  retryBudget: DEFAULT_RETRY_BUDGET,
  parentRef: webParent(80),
  profileRef: { resource: { group: "linkerd.io" } },
};

function webCluster(): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(
    service("web-svc", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      clusterIP: "10.96.10.10",
    }),
  );
  return cluster;
}

const startServer = serverPerTest();

describe("GetProfile, service flow", () => {
  it("sends the default profile when there is no ServiceProfile", async () => {
    const server = await startServer({ cluster: webCluster() });
    const stream = getProfile(server.client, `${WEB_FQN}:80`);
    expect(await stream.next()).toEqual({
      fullyQualifiedName: "web-svc.emojivoto.svc.cluster.local",
      retryBudget: { retryRatio: Math.fround(0.2), minRetriesPerSecond: 10, ttl: "10s" },
      parentRef: {
        resource: {
          group: "core",
          kind: "Service",
          name: "web-svc",
          namespace: "emojivoto",
          port: 80,
        },
      },
      profileRef: { resource: { group: "linkerd.io" } },
    });
    stream.cancel();
  });

  it("translates routes, follows updates and falls back to the default on delete", async () => {
    const cluster = webCluster();
    cluster.apply(
      serviceProfile(
        WEB_FQN,
        {
          routes: [
            {
              name: "GET /api/list",
              condition: { method: "GET", pathRegex: "/api/list" },
              isRetryable: true,
              timeout: "300ms",
            },
            {
              name: "vote",
              condition: { method: "purge" },
              responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
            },
          ],
          retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: "15s" },
        },
        { namespace: NS },
      ),
    );
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, `${WEB_FQN}:80`);
    const profileRef = {
      resource: { group: "linkerd.io", kind: "ServiceProfile", name: WEB_FQN, namespace: NS },
    };
    expect(await stream.next()).toEqual({
      fullyQualifiedName: WEB_FQN,
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
        {
          condition: { method: { unregistered: "PURGE" } },
          responseClasses: [{ condition: { status: { min: 500, max: 599 } }, isFailure: true }],
          metricsLabels: { route: "vote" },
        },
      ],
      retryBudget: { retryRatio: 0.25, minRetriesPerSecond: 5, ttl: "15s" },
      parentRef: webParent(80),
      profileRef,
    });
    cluster.apply(
      serviceProfile(
        WEB_FQN,
        {
          dstOverrides: [
            { authority: "web-svc.emojivoto.svc.cluster.local:80", weight: "900m" },
            { authority: "web-v2.emojivoto.svc.cluster.local", weight: "100m" },
          ],
        },
        { namespace: NS },
      ),
    );
    expect(await stream.next()).toEqual({
      fullyQualifiedName: WEB_FQN,
      retryBudget: DEFAULT_RETRY_BUDGET,
      dstOverrides: [
        { authority: "web-svc.emojivoto.svc.cluster.local:80", weight: 9000 },
        { authority: "web-v2.emojivoto.svc.cluster.local:80", weight: 1000 },
      ],
      parentRef: webParent(80),
      profileRef,
    });
    cluster.delete("ServiceProfile", NS, WEB_FQN);
    expect(await stream.next()).toEqual(webDefaultProfile);
    stream.cancel();
  });

  it("prefers the client namespace's profile named in the context token", async () => {
    const cluster = webCluster();
    cluster.apply(serviceProfile(WEB_FQN, { routes: [] }, { namespace: NS }));
    cluster.apply(
      serviceProfile(
        WEB_FQN,
        {
          routes: [{ name: "client", condition: { pathRegex: "/" } }],
        },
        { namespace: "client-ns" },
      ),
    );
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, `${WEB_FQN}:80`, '{"ns":"client-ns"}');
    expect(await stream.next()).toMatchObject({
      routes: [{ metricsLabels: { route: "client" } }],
      profileRef: { resource: { namespace: "client-ns" } },
    });
    stream.cancel();
  });

  it("sends one empty profile for a port the Service does not define", async () => {
    const server = await startServer({ cluster: webCluster() });
    const stream = getProfile(server.client, `${WEB_FQN}:8080`);
    expect(await stream.next()).toEqual({});
    stream.cancel();
  });

  it("serves a cluster IP as its Service", async () => {
    const server = await startServer({ cluster: webCluster() });
    const stream = getProfile(server.client, "10.96.10.10:80");
    expect(await stream.next()).toEqual(webDefaultProfile);
    stream.cancel();
  });

  it("follows the Service's opaque-ports annotation", async () => {
    const cluster = webCluster();
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, `${WEB_FQN}:80`);
    expect(await stream.next()).not.toHaveProperty("opaqueProtocol");
    cluster.apply(
      service("web-svc", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
        clusterIP: "10.96.10.10",
        annotations: { "config.linkerd.io/opaque-ports": "http" },
      }),
    );
    expect(await stream.next()).toMatchObject({
      fullyQualifiedName: WEB_FQN,
      opaqueProtocol: true,
    });
    stream.cancel();
  });

  it("sends nothing for an invalid ServiceProfile, even one with null routes, and keeps the stream open", async () => {
    const cluster = webCluster();
    cluster.apply(serviceProfile(WEB_FQN, { routes: [null] }, { namespace: NS }));
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, `${WEB_FQN}:80`);
    await server.waitForMetric("profile_subscribers", { namespace: NS, profile: WEB_FQN }, 1);
    expect(server.logs.some((l) => l.includes('"level":"error"'))).toBe(true);
    cluster.apply(
      serviceProfile(
        WEB_FQN,
        { routes: [{ name: "ok", condition: { pathRegex: "/" } }] },
        { namespace: NS },
      ),
    );
    // The first message is the repaired profile: nothing went out for the null route.
    expect(await stream.next()).toMatchObject({ routes: [{ metricsLabels: { route: "ok" } }] });
    stream.cancel();
  });

  it("releases its watches when the client cancels", async () => {
    const server = await startServer({ cluster: webCluster() });
    const profile = getProfile(server.client, `${WEB_FQN}:80`, '{"ns":"client-ns"}');
    const endpoint = getProfile(server.client, "10.244.200.1:80");
    await profile.next();
    await endpoint.next();
    expect(await server.metric("service_subscribers", { namespace: NS, name: "web-svc" })).toBe(1);
    expect(
      await server.metric("profile_subscribers", { namespace: "client-ns", profile: WEB_FQN }),
    ).toBe(1);
    expect(await server.metric("profile_subscribers", { namespace: NS, profile: WEB_FQN })).toBe(1);
    expect(await server.metric("workload_subscribers")).toBe(1);
    profile.cancel();
    endpoint.cancel();
    await server.waitForMetric("workload_subscribers", {}, 0);
    await server.waitForMetric(
      "service_subscribers",
      { namespace: NS, name: "web-svc" },
      undefined,
    );
    // The profile series go with their last listener, as the opaque-ports one does.
    await server.waitForMetric(
      "profile_subscribers",
      { namespace: "client-ns", profile: WEB_FQN },
      undefined,
    );
    await server.waitForMetric(
      "profile_subscribers",
      { namespace: NS, profile: WEB_FQN },
      undefined,
    );
  });

  it("answers the documented errors", async () => {
    const cluster = webCluster();
    cluster.apply(
      service("ext", {
        namespace: NS,
        ports: [{ port: 80, protocol: "TCP" }],
        type: "ExternalName",
      }),
    );
    const server = await startServer({ cluster });
    const cases: [string, number, string][] = [
      ["missing.emojivoto.svc.cluster.local:80", status.UNKNOWN, 'service "missing" not found'],
      [
        "ext.emojivoto.svc.cluster.local:80",
        status.INVALID_ARGUMENT,
        "Invalid authority: ext.emojivoto.svc.cluster.local:80",
      ],
      ["web:0", status.INVALID_ARGUMENT, 'invalid authority: "web:0": "invalid port 0"'],
      [
        "web.emojivoto:80",
        status.INVALID_ARGUMENT,
        'invalid service "web.emojivoto": "name web.emojivoto does not match cluster domain cluster.local"',
      ],
      [
        "x-0.web-svc.emojivoto.svc.cluster.local:80",
        status.NOT_FOUND,
        "no pod found in EndpointSlices of Service emojivoto/web-svc for hostname x-0",
      ],
    ];
    for (const [path, code, details] of cases) {
      expect(await getProfile(server.client, path).end, path).toEqual({ code, details });
    }
    // ExternalName without the port: the empty profile instead of an error.
    const stream = getProfile(server.client, "ext.emojivoto.svc.cluster.local:81");
    expect(await stream.next()).toEqual({});
    stream.cancel();
  });
});

describe("GetProfile, endpoint flow", () => {
  const podEndpoint = (ip: string, port: number, name: string, ns: string, owner: object) => ({
    addr: { ip: { ipv4: ipv4(ip) }, port },
    weight: 10000,
    metricLabels: {
      control_plane_ns: "linkerd",
      namespace: ns,
      pod: name,
      serviceaccount: "default",
      zone: "",
      ...owner,
    },
    tlsIdentity: tlsIdentityOf("default", ns),
    protocolHint: { h2: {} },
  });

  it("describes the pod behind a pod IP", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(replicaSet("web-5f86686c4d", "web", { namespace: NS }));
    cluster.apply(
      pod("web-5f86686c4d-58xq9", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.1.10",
        labels: { "pod-template-hash": "5f86686c4d" },
        replicaSet: "web-5f86686c4d",
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, "10.244.1.10:8080");
    expect(await stream.next()).toEqual({
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: podEndpoint("10.244.1.10", 8080, "web-5f86686c4d-58xq9", NS, {
        deployment: "web",
        pod_template_hash: "5f86686c4d",
      }),
    });
    stream.cancel();
  });

  it("serves an unknown IP as a bare endpoint, opaque on a default opaque port", async () => {
    const server = await startServer({ defaultOpaquePorts: new Set([3306]) });
    const stream = getProfile(server.client, "192.0.2.7:3306");
    expect(await stream.next()).toEqual({
      opaqueProtocol: true,
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: { addr: { ip: { ipv4: ipv4("192.0.2.7") }, port: 3306 }, weight: 10000 },
    });
    stream.cancel();
  });

  it("encodes an IPv6 endpoint as two fixed64 halves", async () => {
    const server = await startServer();
    const stream = getProfile(server.client, "[2001:db8::68]:8080");
    expect(await stream.next()).toEqual({
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: {
        addr: { ip: { ipv6: { first: "2306139568115548160", last: "104" } }, port: 8080 },
        weight: 10000,
      },
    });
    stream.cancel();
  });

  it("loses and regains a host-port pod deleted and recreated", async () => {
    const cluster = new MemoryCluster();
    const exporter = pod("node-exporter-7hx4c", {
      ...CLUSTER_POD,
      namespace: "monitoring",
      ip: "10.244.1.20",
      labels: {},
      ports: [{ name: "metrics", containerPort: 9100, protocol: "TCP", hostPort: 9100 }],
      hostIp: "172.18.0.2",
    });
    cluster.apply(exporter);
    const server = await startServer({ cluster });
    const stream = getProfile(server.client, "172.18.0.2:9100");
    const withPod = {
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: podEndpoint("172.18.0.2", 9100, "node-exporter-7hx4c", "monitoring", {}),
    };
    expect(await stream.next()).toEqual(withPod);
    cluster.delete("Pod", "monitoring", "node-exporter-7hx4c");
    expect(await stream.next()).toEqual({
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: { addr: { ip: { ipv4: ipv4("172.18.0.2") }, port: 9100 }, weight: 10000 },
    });
    cluster.apply(exporter);
    expect(await stream.next()).toEqual(withPod);
    stream.cancel();
  });

  it("resolves an instance name through the Service's slices", async () => {
    const server = await startServer({ cluster: pgCluster([1]) });
    const stream = getProfile(server.client, "pg-1.pg.data.svc.cluster.local:5432");
    expect(await stream.next()).toEqual({
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: podEndpoint("10.244.5.2", 5432, "pg-1", "data", {}),
    });
    stream.cancel();
  });

  it("refuses an IP shared by two live pods", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      pod("a", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.9.9",
        labels: {},
        ports: [{ name: "x", containerPort: 80, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      pod("b", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.9.9",
        labels: {},
        ports: [{ name: "x", containerPort: 80, protocol: "TCP" }],
      }),
    );
    const server = await startServer({ cluster });
    expect(await getProfile(server.client, "10.244.9.9:80").end).toEqual({
      code: status.FAILED_PRECONDITION,
      details: "found 2 pods with a conflicting pod network IP 10.244.9.9",
    });
  });
});
