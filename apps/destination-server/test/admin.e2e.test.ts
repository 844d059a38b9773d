import { connect } from "node:net";
import { MemoryCluster } from "@destination/k8s-discovery";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import { describe, expect, it } from "vitest";
import type { EndpointsReport } from "../src/admin/endpoints-report.js";
import { CacheSyncTimeoutError, createServerLogger, startDestinationServer } from "../src/index.js";
import { freePort } from "./support/free-port.js";
import { GatedCluster } from "./support/gated-cluster.js";
import { serverPerTest } from "./support/server-per-test.js";
import { adminGet, metricValue } from "./support/test-server.js";

const quiet = () => createServerLogger({ sink: { write: () => true } });

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const startServer = serverPerTest();

describe("admin server", () => {
  it("answers /ping, /live, /ready and 404", async () => {
    const server = await startServer();
    expect(await server.admin("/ping")).toEqual({ status: 200, body: "pong\n" });
    expect(await server.admin("/live")).toEqual({ status: 200, body: "pong\n" });
    expect(await server.admin("/ready")).toEqual({ status: 200, body: "ok\n" });
    expect((await server.admin("/nope")).status).toBe(404);
    expect((await server.admin("/debug/pprof/")).status).toBe(404);
  });

  it("exposes gRPC, cache, watcher and process metrics", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(service("web", { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] }));
    const server = await startServer({ cluster });
    const before = (await server.admin("/metrics")).body;
    // Not pre-initialised: a method's series appear on its first call.
    expect(before).not.toContain('grpc_method="Get"');
    expect(metricValue(before, "service_cache_size", { cluster: "local" })).toBe(1);
    expect(metricValue(before, "pod_cache_size", { cluster: "local" })).toBe(0);
    expect(before).toContain("process_cpu_user_seconds_total");
    expect(before).toContain("nodejs_eventloop_lag_seconds");

    const stream = get(server.client, "web.ns.svc.cluster.local:80");
    await server.waitForMetric(
      "endpoints_subscribers",
      { namespace: "ns", service: "web", port: "80" },
      1,
    );
    const labels = {
      grpc_type: "server_stream",
      grpc_service: "io.linkerd.proxy.destination.Destination",
      grpc_method: "Get",
    };
    expect(await server.metric("grpc_server_started_total", labels)).toBe(1);
    expect(await server.metric("grpc_server_msg_received_total", labels)).toBe(1);
    stream.cancel();
    await server.waitForMetric("grpc_server_handled_total", { ...labels, grpc_code: "OK" }, 1);
    const after = (await server.admin("/metrics")).body;
    expect(after).toContain(
      'grpc_server_handling_seconds_bucket{le="3600",grpc_type="server_stream",grpc_service="io.linkerd.proxy.destination.Destination",grpc_method="Get"} 1',
    );
    expect(after).toMatch(/grpc_server_handling_seconds_bucket\{le="0.1",/);
    expect(after).toMatch(/grpc_server_handling_seconds_bucket\{le="300",/);
    expect(after).toContain("# TYPE endpoint_updates_queue_overflow counter");
  });

  it("explains one Service's endpoints at /debug/endpoints, as JSON", async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("web", {
        namespace: "ns",
        ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      pod("web-0", {
        ...CLUSTER_POD,
        namespace: "ns",
        ip: "10.3.0.1",
        labels: {},
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      pod("web-1", {
        ...CLUSTER_POD,
        namespace: "ns",
        ip: "10.3.0.2",
        labels: {},
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(
        "web-x",
        "web",
        [
          podEndpoint("web-0", "10.3.0.1", { namespace: "ns" }),
          podEndpoint("web-1", "10.3.0.2", { namespace: "ns", ready: false }),
        ],
        { namespace: "ns", ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    const server = await startServer({ cluster });
    const stream = get(server.client, "web.ns.svc.cluster.local:80");
    await stream.next();

    const res = await fetch(
      `http://127.0.0.1:${server.server.adminPort}/debug/endpoints?service=ns/web`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const report = (await res.json()) as EndpointsReport;
    expect(report.service).toMatchObject({
      name: "web",
      namespace: "ns",
      ports: [{ port: 80, targetPort: 8080 }],
    });
    expect(report.endpointSlices[0]?.endpoints.map((e) => e.addresses[0])).toEqual([
      expect.objectContaining({
        address: "10.3.0.1",
        served: true,
        reason: null,
        pod: expect.objectContaining({ name: "web-0" }),
      }),
      expect.objectContaining({ address: "10.3.0.2", served: false, reason: "not ready" }),
    ]);
    expect(report.subscribers).toEqual({ total: 1, ports: [{ port: 80, subscribers: 1 }] });
    stream.cancel();

    const missing = await server.admin("/debug/endpoints?service=ns/nope");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({
      error: "Service ns/nope not found (no Service, no EndpointSlices)",
    });
    const malformed = await server.admin("/debug/endpoints?service=web");
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error).toMatch(/^service must be NAMESPACE\/NAME/);
  });

  it("is not ready, and gRPC is not listening, until the caches sync", async () => {
    const cluster = new GatedCluster();
    const [grpcPort, adminPort] = [await freePort(), await freePort()];
    const starting = startDestinationServer({
      cluster,
      addr: `127.0.0.1:${grpcPort}`,
      metricsAddr: `127.0.0.1:${adminPort}`,
      logger: quiet(),
    });
    // The admin server comes up first; poll until it answers.
    let ready = await adminGet(adminPort, "/ready").catch(() => undefined);
    while (ready === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ready = await adminGet(adminPort, "/ready").catch(() => undefined);
    }
    expect(ready).toEqual({ status: 500, body: "not ready\n" });
    expect(await adminGet(adminPort, "/ping")).toEqual({ status: 200, body: "pong\n" });
    expect((await adminGet(adminPort, "/debug/endpoints?service=ns/web")).status).toBe(503);
    expect(await canConnect(grpcPort)).toBe(false);
    cluster.release();
    const running = await starting;
    expect(running.grpcPort).toBe(grpcPort);
    expect(await adminGet(adminPort, "/ready")).toEqual({ status: 200, body: "ok\n" });
    expect(await canConnect(grpcPort)).toBe(true);
    await running.close();
  });

  it("gives up when the caches do not sync in time, releasing the admin port", async () => {
    const adminPort = await freePort();
    await expect(
      startDestinationServer({
        cluster: new GatedCluster(),
        addr: "127.0.0.1:0",
        metricsAddr: `127.0.0.1:${adminPort}`,
        cacheSyncTimeoutMs: 20,
        logger: quiet(),
      }),
    ).rejects.toBeInstanceOf(CacheSyncTimeoutError);
    expect(await canConnect(adminPort)).toBe(false);
  });
});
