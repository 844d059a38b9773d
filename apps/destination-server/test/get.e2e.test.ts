import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  node,
  server as opaqueServer,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { get, ipv4 } from "@destination/test-support/server";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { tlsIdentityOf } from "./support/expected.js";
import { pgCluster } from "./support/pg-cluster.js";
import { serverPerTest } from "./support/server-per-test.js";

const NS = "emojivoto";
const WEB = "web-svc.emojivoto.svc.cluster.local";

/** A meshed pod address as Get sends it with the default flags. */
function meshedAddr(ip: string, port: number, podName: string, extra: Record<string, string>) {
  const sa = extra.serviceaccount ?? "default";
  return {
    addr: { ip: { ipv4: ipv4(ip) }, port },
    weight: 10000,
    metricLabels: {
      control_plane_ns: "linkerd",
      pod: podName,
      serviceaccount: sa,
      zone: "",
      zone_locality: "unknown",
      ...extra,
    },
    tlsIdentity: tlsIdentityOf(sa, NS),
    protocolHint: { h2: {} },
  };
}

function webCluster(): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(
    service("web-svc", {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
    }),
  );
  cluster.apply(replicaSet("web-5f86686c4d", "web", { namespace: NS }));
  cluster.apply(
    pod("web-5f86686c4d-58xq9", {
      ...CLUSTER_POD,
      namespace: NS,
      ip: "10.244.1.10",
      labels: { "pod-template-hash": "5f86686c4d", app: "web" },
      replicaSet: "web-5f86686c4d",
      serviceAccountName: "web",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  );
  cluster.apply(
    slice(
      "web-svc-1",
      "web-svc",
      [podEndpoint("web-5f86686c4d-58xq9", "10.244.1.10", { namespace: NS })],
      { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ),
  );
  return cluster;
}

/** Service emoji:8080 with one endpoint hinted for zone-a and one for zone-b; no Node. */
function zonedEmojiCluster(): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(service("emoji", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }));
  cluster.apply(
    pod("e-a", {
      ...CLUSTER_POD,
      namespace: NS,
      ip: "10.244.6.1",
      labels: {},
      ports: [{ name: "g", containerPort: 8080, protocol: "TCP" }],
    }),
  );
  cluster.apply(
    pod("e-b", {
      ...CLUSTER_POD,
      namespace: NS,
      ip: "10.244.6.2",
      labels: {},
      ports: [{ name: "g", containerPort: 8080, protocol: "TCP" }],
    }),
  );
  cluster.apply(
    slice(
      "emoji-1",
      "emoji",
      [
        podEndpoint("e-a", "10.244.6.1", { namespace: NS, zone: "zone-a", forZones: ["zone-a"] }),
        podEndpoint("e-b", "10.244.6.2", { namespace: NS, zone: "zone-b", forZones: ["zone-b"] }),
      ],
      { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
    ),
  );
  return cluster;
}

const startServer = serverPerTest();

describe("Get", () => {
  it("sends the current endpoints of a service as one add, exactly", async () => {
    const server = await startServer({ cluster: webCluster() });
    const stream = get(server.client, `${WEB}:80`);
    expect(await stream.next()).toEqual({
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: 183763210 }, port: 8080 },
            weight: 10000,
            metricLabels: {
              control_plane_ns: "linkerd",
              deployment: "web",
              pod: "web-5f86686c4d-58xq9",
              pod_template_hash: "5f86686c4d",
              serviceaccount: "web",
              zone: "",
              zone_locality: "unknown",
            },
            tlsIdentity: {
              dnsLikeIdentity: {
                name: "web.emojivoto.serviceaccount.identity.linkerd.cluster.local",
              },
              serverName: { name: "web.emojivoto.serviceaccount.identity.linkerd.cluster.local" },
            },
            protocolHint: { h2: {} },
          },
        ],
        metricLabels: { namespace: "emojivoto", service: "web-svc" },
      },
    });
    stream.cancel();
  });

  it("defaults to port 80 and follows adds and removes (add before remove)", async () => {
    const cluster = webCluster();
    const server = await startServer({ cluster });
    const stream = get(server.client, WEB);
    await stream.next();
    // Replace the pod by another one: the new address is added, then the old one removed.
    cluster.apply(
      pod("web-2", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.1.11",
        labels: {},
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice("web-svc-1", "web-svc", [podEndpoint("web-2", "10.244.1.11", { namespace: NS })], {
        namespace: NS,
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      }),
    );
    expect(await stream.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.1.11", 8080, "web-2", { pod: "web-2" })],
        metricLabels: { namespace: NS, service: "web-svc" },
      },
    });
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.244.1.10") }, port: 8080 }] },
    });
    // The Service goes: every address is removed; Get never sends NoEndpoints.
    cluster.delete("Service", NS, "web-svc");
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.244.1.11") }, port: 8080 }] },
    });
    stream.cancel();
  });

  it("stays silent for a service without endpoints until they appear", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(service("empty", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }));
    const server = await startServer({ cluster });
    const stream = get(server.client, "empty.emojivoto.svc.cluster.local:8080");
    await server.waitForMetric(
      "endpoints_subscribers",
      { namespace: NS, service: "empty", port: "8080" },
      1,
    );
    cluster.apply(
      pod("e-1", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.3.1",
        labels: {},
        ports: [{ name: "x", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice("empty-1", "empty", [podEndpoint("e-1", "10.244.3.1", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    // The first message is the add: nothing was sent while the service was empty.
    expect(await stream.next()).toMatchObject({
      add: { addrs: [{ addr: { ip: { ipv4: ipv4("10.244.3.1") }, port: 8080 } }] },
    });
    stream.cancel();
  });

  it("keeps the addresses of a service's other slice when one of its two slices is deleted", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("two", { namespace: NS, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
    );
    cluster.apply(
      pod("a", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.4.1",
        labels: {},
        ports: [{ name: "h", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      pod("b", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.4.2",
        labels: {},
        ports: [{ name: "h", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice("two-a", "two", [podEndpoint("a", "10.244.4.1", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice("two-b", "two", [podEndpoint("b", "10.244.4.2", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    const server = await startServer({ cluster });
    const stream = get(server.client, "two.emojivoto.svc.cluster.local:80");
    expect(await stream.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.4.1", 8080, "a", {}), meshedAddr("10.244.4.2", 8080, "b", {})],
        metricLabels: { namespace: NS, service: "two" },
      },
    });
    cluster.delete("EndpointSlice", NS, "two-a");
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.244.4.1") }, port: 8080 }] },
    });
    // b is still served: a later change to its slice is an add of b's new neighbour only.
    cluster.apply(
      pod("c", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.4.3",
        labels: {},
        ports: [{ name: "h", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(
        "two-b",
        "two",
        [
          podEndpoint("b", "10.244.4.2", { namespace: NS }),
          podEndpoint("c", "10.244.4.3", { namespace: NS }),
        ],
        { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
      ),
    );
    expect(await stream.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.4.3", 8080, "c", {})],
        metricLabels: { namespace: NS, service: "two" },
      },
    });
    stream.cancel();
  });

  it("skips endpoints that are not ready", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("half", { namespace: NS, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
    );
    cluster.apply(
      pod("up", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.7.1",
        labels: {},
        ports: [{ name: "h", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      pod("down", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.7.2",
        labels: {},
        ports: [{ name: "h", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(
        "half-1",
        "half",
        [
          podEndpoint("up", "10.244.7.1", { namespace: NS }),
          podEndpoint("down", "10.244.7.2", { namespace: NS, ready: false }),
        ],
        { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
      ),
    );
    const server = await startServer({ cluster });
    const stream = get(server.client, "half.emojivoto.svc.cluster.local:80");
    expect(await stream.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.7.1", 8080, "up", {})],
        metricLabels: { namespace: NS, service: "half" },
      },
    });
    stream.cancel();
  });

  it("has no low cap on streams per connection", async () => {
    const server = await startServer({ cluster: webCluster() });
    // One client, so one HTTP/2 connection, as a proxy multiplexes its lookups.
    const { client } = server;
    const streams = Array.from({ length: 300 }, () => get(client, `${WEB}:80`));
    const firsts = await Promise.all(streams.map((s) => s.next()));
    expect(firsts.every((m) => JSON.stringify(m).includes("web-5f86686c4d-58xq9"))).toBe(true);
    for (const s of streams) s.cancel();
  });

  it("filters by instance hostname", async () => {
    const server = await startServer({ cluster: pgCluster([0, 1]) });
    const stream = get(server.client, "pg-1.pg.data.svc.cluster.local:5432");
    const first = (await stream.next()) as { add: { addrs: { addr: unknown }[] } };
    expect(first.add.addrs.map((a) => a.addr)).toEqual([
      { ip: { ipv4: ipv4("10.244.5.2") }, port: 5432 },
    ]);
    stream.cancel();
  });

  it("uses the caller's zone from the context token for hints and zone_locality", async () => {
    const cluster = zonedEmojiCluster();
    cluster.apply(node("node-a", { labels: { "topology.kubernetes.io/zone": "zone-a" } }));
    const server = await startServer({ cluster });
    const token = '{"ns":"emojivoto", "nodeName":"node-a", "pod":"web-1"}\n';
    const stream = get(server.client, "emoji.emojivoto.svc.cluster.local:8080", token);
    expect(await stream.next()).toEqual({
      add: {
        addrs: [meshedAddr("10.244.6.1", 8080, "e-a", { zone: "zone-a", zone_locality: "local" })],
        metricLabels: { namespace: NS, service: "emoji" },
      },
    });
    stream.cancel();
  });

  it("a caller's Node cached after the stream started brings its zone: hints and zone_locality follow", async () => {
    const cluster = zonedEmojiCluster();
    const server = await startServer({ cluster });
    const token = '{"ns":"emojivoto", "nodeName":"node-a", "pod":"web-1"}\n';
    const stream = get(server.client, "emoji.emojivoto.svc.cluster.local:8080", token);
    // The Node is not cached yet: no zone, so no hint filtering and no locality.
    expect(await stream.next()).toEqual({
      add: {
        addrs: [
          meshedAddr("10.244.6.1", 8080, "e-a", { zone: "zone-a" }),
          meshedAddr("10.244.6.2", 8080, "e-b", { zone: "zone-b" }),
        ],
        metricLabels: { namespace: NS, service: "emoji" },
      },
    });
    cluster.apply(node("node-a", { labels: { "topology.kubernetes.io/zone": "zone-a" } }));
    // Hint filtering drops the other zone's endpoint; the kept one is re-sent as local.
    const after = [await stream.next(), await stream.next()];
    expect(after).toContainEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.244.6.2") }, port: 8080 }] },
    });
    expect(after).toContainEqual({
      add: {
        addrs: [meshedAddr("10.244.6.1", 8080, "e-a", { zone: "zone-a", zone_locality: "local" })],
        metricLabels: { namespace: NS, service: "emoji" },
      },
    });
    stream.cancel();
  });

  it("re-sends an address as opaque when a Server marks its port opaque", async () => {
    const cluster = webCluster();
    const server = await startServer({ cluster });
    const stream = get(server.client, `${WEB}:80`);
    await stream.next();
    cluster.apply(
      opaqueServer("web-http", { namespace: NS, podSelector: { app: "web" }, port: "http" }),
    );
    const update = (await stream.next()) as { add: { addrs: { protocolHint: unknown }[] } };
    expect(update.add.addrs[0]?.protocolHint).toEqual({
      opaqueTransport: { inboundPort: 4143 },
      opaque: {},
    });
    stream.cancel();
  });

  it("answers the documented errors", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("ext", {
        namespace: NS,
        ports: [{ port: 80, protocol: "TCP" }],
        type: "ExternalName",
      }),
    );
    const server = await startServer({ cluster });
    const cases: [string, number, string][] = [
      [
        "missing.emojivoto.svc.cluster.local:80",
        status.NOT_FOUND,
        "Service missing.emojivoto not found",
      ],
      [
        "ext.emojivoto.svc.cluster.local:80",
        status.INVALID_ARGUMENT,
        "Invalid authority: ext.emojivoto.svc.cluster.local:80",
      ],
      [
        "10.0.0.1:80",
        status.INVALID_ARGUMENT,
        "IP queries not supported by Get API: host=10.0.0.1",
      ],
      ["web:99999", status.INVALID_ARGUMENT, "Invalid authority: web:99999"],
      ["web.emojivoto:80", status.INVALID_ARGUMENT, "Invalid authority: web.emojivoto:80"],
    ];
    for (const [path, code, details] of cases) {
      expect(await get(server.client, path).end, path).toEqual({ code, details });
    }
  });

  it("releases its subscription when the client cancels", async () => {
    const server = await startServer({ cluster: webCluster() });
    const stream = get(server.client, `${WEB}:80`);
    await stream.next();
    const labels = { namespace: NS, service: "web-svc", port: "80" };
    expect(await server.metric("endpoints_subscribers", labels)).toBe(1);
    stream.cancel();
    await stream.end;
    // The cancel reaches the server asynchronously: poll the gauge until the series goes.
    await server.waitForMetric("endpoints_subscribers", labels, undefined);
    expect(
      await server.metric("grpc_server_handled_total", { grpc_method: "Get", grpc_code: "OK" }),
    ).toBe(1);
  });
});
