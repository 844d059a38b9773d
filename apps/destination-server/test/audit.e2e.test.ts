// The self-audit from outside: a fake API server withholds one watch event, so the server's
// caches go stale the way a dropped watch line leaves them. The audit must find it, count and
// log it, and heal the Get stream over a real gRPC connection without any further API change.
import { createKubeCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  clusterBasics,
  pod,
  podEndpoint,
  service,
  slice,
} from "@destination/test-support/builders";
import { FakeApiServer } from "@destination/test-support/fake-api-server";
import { get, getProfile } from "@destination/test-support/streams";
import { eventually } from "@destination/vitest-config/eventually";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const AUTHORITY = "web.shop.svc.cluster.local:8080";

async function serverOnFakeApi(auditIntervalMs: number): Promise<{
  api: FakeApiServer;
  server: TestServer;
}> {
  const api = new FakeApiServer();
  await api.start();
  cleanup.push(() => api.close());
  for (const obj of [
    ...clusterBasics(),
    service("web", { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] }),
    pod("web-1", {
      ...CLUSTER_POD,
      namespace: "shop",
      ip: "10.0.0.1",
      labels: {},
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
    pod("web-2", {
      ...CLUSTER_POD,
      namespace: "shop",
      ip: "10.0.0.2",
      labels: {},
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
    slice("web-abc", "web", [podEndpoint("web-1", "10.0.0.1", { namespace: "shop" })], {
      namespace: "shop",
      ports: [{ port: 8080, protocol: "TCP" }],
    }),
  ]) {
    api.apply(obj);
  }
  const cluster = await createKubeCluster({
    kubeConfig: api.kubeConfig(),
    enableEndpointSlices: true,
    // Off, so that nothing but the audit can bring the missed event back.
    resyncMs: 0,
  });
  const server = await startTestServer({ cluster, auditIntervalMs });
  cleanup.push(() => server.close());
  return { api, server };
}

const logLines = (server: TestServer) =>
  server.logs.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("self-audit of Get against the API server", () => {
  it("finds an endpoint the caches missed, says so in metrics and logs, and heals the stream", async () => {
    const { api, server } = await serverOnFakeApi(1_000);
    const stream = get(server.client, AUTHORITY);
    cleanup.push(async () => stream.cancel());
    const first = (await stream.next()) as { add?: { addrs?: unknown[] } };
    expect(first.add?.addrs).toHaveLength(1);
    await eventually(() => expect(api.openWatches).toBeGreaterThanOrEqual(9));

    // The slice gains web-2, but the server's watch never hears of it.
    api.withholdNextEvent("EndpointSlice", "web-abc");
    api.apply(
      slice(
        "web-abc",
        "web",
        [
          podEndpoint("web-1", "10.0.0.1", { namespace: "shop" }),
          podEndpoint("web-2", "10.0.0.2", { namespace: "shop" }),
        ],
        { namespace: "shop", ports: [{ port: 8080, protocol: "TCP" }] },
      ),
    );
    expect(api.withheldEvents).toBe(1);

    // The audit finds web-2 missing, relists EndpointSlices, and the stream hears of it.
    const healed = (await stream.next(15_000)) as {
      add?: { addrs?: { addr: { ip: { ipv4: number } }; tlsIdentity?: unknown }[] };
    };
    expect(healed.add?.addrs).toHaveLength(1);
    expect(healed.add?.addrs?.[0]?.addr.ip.ipv4).toBe(0x0a000002);

    await eventually(async () => {
      expect(
        await server.metric("destination_audit_divergent_endpoints_total", { kind: "missing" }),
      ).toBe(1);
      expect(await server.metric("destination_audit_runs_total", { result: "healed" })).toBe(1);
    });
    expect(
      await server.metric("destination_audit_divergent_endpoints_total", { kind: "extra" }),
    ).toBe(0);
    expect(await server.metric("destination_audit_runs_total", { result: "unhealed" })).toBe(0);
    expect(await server.metric("destination_audit_divergent_streams")).toBe(1);

    const warned = logLines(server)
      .filter((l) => l.level === "warning" || l.level === "warn")
      .filter((l) => String(l.msg ?? l.message).includes("self-audit"));
    expect(warned).toHaveLength(1);
    // The stream's own messages were compared (it is its subscription's witness).
    expect(warned[0]).toMatchObject({
      authority: AUTHORITY,
      service: "shop/web",
      port: 8080,
      heldBy: "stream",
    });
    expect(JSON.stringify(warned[0]?.missing)).toContain("10.0.0.2:8080");
    expect(warned[0]?.relisting).toEqual(["EndpointSlice"]);
    expect(logLines(server).filter((l) => l.level === "error")).toEqual([]);

    // Later runs find nothing.
    await eventually(async () =>
      expect(
        await server.metric("destination_audit_runs_total", { result: "clean" }),
      ).toBeGreaterThan(0),
    );
    expect(await server.metric("destination_audit_streams_checked")).toBe(1);
    expect(await server.metric("destination_audit_divergent_streams")).toBe(0);
  }, 30_000);

  it("heals a GetProfile stream whose Service's opaque ports the caches missed", async () => {
    const { api, server } = await serverOnFakeApi(1_000);
    const stream = getProfile(server.client, AUTHORITY);
    cleanup.push(async () => stream.cancel());
    const first = (await stream.next()) as { opaqueProtocol?: boolean };
    expect(first.opaqueProtocol ?? false).toBe(false);
    await eventually(() => expect(api.openWatches).toBeGreaterThanOrEqual(9));

    api.withholdNextEvent("Service", "web");
    api.apply(
      service("web", {
        namespace: "shop",
        ports: [{ port: 8080, protocol: "TCP" }],
        annotations: { "config.linkerd.io/opaque-ports": "8080" },
      }),
    );
    expect(api.withheldEvents).toBe(1);

    const healed = (await stream.next(15_000)) as { opaqueProtocol?: boolean };
    expect(healed.opaqueProtocol).toBe(true);
    await eventually(async () => {
      expect(
        await server.metric("destination_audit_divergent_profiles_total", { flow: "service" }),
      ).toBe(1);
      expect(await server.metric("destination_audit_runs_total", { result: "healed" })).toBe(1);
    });
    const warned = logLines(server).filter((l) =>
      String(l.msg).includes("GetProfile stream holds another profile"),
    );
    expect(warned).toMatchObject([
      { authority: AUTHORITY, fields: ["opaqueProtocol"], relisting: ["Service"] },
    ]);
    expect(logLines(server).filter((l) => l.level === "error")).toEqual([]);
  }, 30_000);

  it("lists nothing and reports clean when no Get stream is open", async () => {
    const { api, server } = await serverOnFakeApi(300);
    await eventually(async () =>
      expect(
        await server.metric("destination_audit_runs_total", { result: "clean" }),
      ).toBeGreaterThan(1),
    );
    const lists = api.requests.filter((r) => !r.query.has("watch") && r.query.has("limit"));
    // Only the start's lists: the audit made none.
    expect(lists.every((r) => r.query.get("resourceVersion") === "0")).toBe(true);
  });

  it("is off with -audit-interval=0", async () => {
    const { server } = await serverOnFakeApi(0);
    expect(
      await server.metric("destination_audit_runs_total", { result: "clean" }),
    ).toBeUndefined();
    expect(
      logLines(server).some((l) => String(l.msg ?? l.message).includes("self-audit off")),
    ).toBe(true);
  });
});
