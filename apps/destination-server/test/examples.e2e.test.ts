import { fileURLToPath } from "node:url";
import { get, getProfile, ipv4 } from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RETRY_BUDGET, tlsIdentityOf } from "./support/expected.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

// The repository's example cluster, served with the chart's flag values (deploy/).
const EXAMPLES = fileURLToPath(new URL("../../../examples", import.meta.url));
const NS = "emojivoto";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    manifests: EXAMPLES,
    forceOpaqueTransport: true,
    enableIpv6: false,
    defaultOpaquePorts: new Set([25, 587, 3306, 4444, 5432, 6379, 9300, 11211]),
  });
});
afterAll(async () => {
  await server.close();
});

describe("the example cluster", () => {
  it("serves web-svc with its deployment labels and transport-header hints", async () => {
    const stream = get(server.client, "web-svc.emojivoto.svc.cluster.local:80");
    expect(await stream.next()).toEqual({
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: ipv4("10.244.1.10") }, port: 8080 },
            weight: 10000,
            metricLabels: {
              control_plane_ns: "linkerd",
              deployment: "web",
              pod: "web-5f86686c4d-58xq9",
              pod_template_hash: "5f86686c4d",
              serviceaccount: "web",
              zone: "eu-west-1a",
              zone_locality: "unknown",
            },
            tlsIdentity: tlsIdentityOf("web", NS),
            protocolHint: { h2: {}, opaqueTransport: { inboundPort: 4143 } },
          },
        ],
        metricLabels: { namespace: NS, service: "web-svc" },
      },
    });
    stream.cancel();
  });

  it("filters emoji-svc by the caller's zone hints", async () => {
    const stream = get(
      server.client,
      "emoji-svc.emojivoto.svc.cluster.local:8080",
      '{"ns":"emojivoto","nodeName":"node-a","pod":"web-5f86686c4d-58xq9"}\n',
    );
    const update = (await stream.next()) as {
      add: { addrs: { addr: unknown; metricLabels: object }[] };
    };
    expect(update.add.addrs.map((a) => [a.addr, a.metricLabels])).toEqual([
      [
        { ip: { ipv4: ipv4("10.244.1.11") }, port: 8080 },
        expect.objectContaining({ zone: "eu-west-1a", zone_locality: "local" }),
      ],
    ]);
    stream.cancel();
  });

  it("marks voting's gRPC port opaque through its Server", async () => {
    const stream = get(server.client, "voting-svc.emojivoto.svc.cluster.local:8080");
    const update = (await stream.next()) as { add: { addrs: { protocolHint: unknown }[] } };
    expect(update.add.addrs[0]?.protocolHint).toEqual({
      opaque: {},
      opaqueTransport: { inboundPort: 4143 },
    });
    stream.cancel();
  });

  it("splits voting traffic 90/10 by its ServiceProfile", async () => {
    const stream = getProfile(server.client, "10.96.10.12:8080");
    expect(await stream.next()).toEqual({
      fullyQualifiedName: "voting-svc.emojivoto.svc.cluster.local",
      retryBudget: DEFAULT_RETRY_BUDGET,
      dstOverrides: [
        { authority: "voting-svc.emojivoto.svc.cluster.local:8080", weight: 9000 },
        { authority: "voting-v2-svc.emojivoto.svc.cluster.local:8080", weight: 1000 },
      ],
      parentRef: {
        resource: { group: "core", kind: "Service", name: "voting-svc", namespace: NS, port: 8080 },
      },
      profileRef: {
        resource: {
          group: "linkerd.io",
          kind: "ServiceProfile",
          name: "voting-svc.emojivoto.svc.cluster.local",
          namespace: NS,
        },
      },
    });
    stream.cancel();
  });

  it("serves postgres instances and its opaque port", async () => {
    const instance = get(server.client, "postgres-0.postgres.data.svc.cluster.local:5432");
    const update = (await instance.next()) as { add: { addrs: { addr: unknown }[] } };
    expect(update.add.addrs.map((a) => a.addr)).toEqual([
      { ip: { ipv4: ipv4("10.244.1.30") }, port: 5432 },
    ]);
    instance.cancel();
    const profile = getProfile(server.client, "postgres.data.svc.cluster.local:5432");
    expect(await profile.next()).toMatchObject({ opaqueProtocol: true });
    profile.cancel();
    const endpoint = getProfile(server.client, "postgres-1.postgres.data.svc.cluster.local:5432");
    expect(await endpoint.next()).toMatchObject({
      opaqueProtocol: true,
      endpoint: {
        addr: { ip: { ipv4: ipv4("10.244.2.30") }, port: 5432 },
        metricLabels: { pod: "postgres-1", statefulset: "postgres", namespace: "data" },
        protocolHint: { opaque: {}, opaqueTransport: { inboundPort: 4143 } },
      },
    });
    endpoint.cancel();
  });

  it("finds the host-port pod behind a node IP", async () => {
    const stream = getProfile(server.client, "172.18.0.2:9100");
    expect(await stream.next()).toEqual({
      retryBudget: DEFAULT_RETRY_BUDGET,
      endpoint: {
        addr: { ip: { ipv4: ipv4("172.18.0.2") }, port: 9100 },
        weight: 10000,
        metricLabels: {
          control_plane_ns: "linkerd",
          daemonset: "node-exporter",
          namespace: "monitoring",
          pod: "node-exporter-7hx4c",
          serviceaccount: "node-exporter",
          zone: "",
        },
        tlsIdentity: tlsIdentityOf("node-exporter", "monitoring"),
        protocolHint: { h2: {}, opaqueTransport: { inboundPort: 4143 } },
      },
    });
    stream.cancel();
  });

  it("keeps voting-v2-svc silent: it has no endpoints", async () => {
    const stream = get(server.client, "voting-v2-svc.emojivoto.svc.cluster.local:8080");
    await server.waitForMetric(
      "endpoints_subscribers",
      { namespace: NS, service: "voting-v2-svc", port: "8080" },
      1,
    );
    expect(stream.received).toEqual([]);
    stream.cancel();
  });
});
