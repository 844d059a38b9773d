// The Destination handlers mounted on a grpc-js Server this test builds itself, as a user of
// @destination/server would (its README, "Mounting the handlers"): no startDestinationServer,
// only the exported context and handlers, served over a real loopback socket.

import { MemoryCluster } from "@destination/k8s-discovery";
import { DestinationService } from "@destination/proto";
import { DestinationClient } from "@destination/proto/client";
import { createDestinationContext, destinationHandlers } from "@destination/server";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WEB = "web.ns.svc.cluster.local:80";

let cluster: MemoryCluster;
let server: grpc.Server;
let client: DestinationClient;
let destination: ReturnType<typeof createDestinationContext>;
const registry = new Registry();

beforeAll(async () => {
  cluster = new MemoryCluster();
  cluster.apply(
    service("web", {
      namespace: "ns",
      ports: [{ port: 80, protocol: "TCP" }],
      clusterIP: "10.96.0.10",
    }),
  );
  cluster.apply(
    pod("web-0", {
      ...CLUSTER_POD,
      namespace: "ns",
      ip: "10.1.0.1",
      labels: {},
      ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
    }),
  );
  cluster.apply(
    slice(
      "web-1",
      "web",
      [podEndpoint("web-0", "10.1.0.1", { namespace: "ns", hostname: "web-0" })],
      { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] },
    ),
  );
  // Built before the cluster starts, so every watcher sees the cluster's first lists.
  destination = createDestinationContext(cluster, { registry });
  await cluster.start();
  await cluster.whenSynced();

  server = new grpc.Server();
  server.addService(DestinationService, destinationHandlers(destination.context));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  client = new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await destination?.close();
  await new Promise<void>((resolve) => (server ? server.tryShutdown(() => resolve()) : resolve()));
  await cluster?.stop();
});

describe("Destination handlers on a user's own grpc-js Server", () => {
  it("streams a Service's endpoints, then their changes", async () => {
    const stream = get(client, WEB);
    const first = (await stream.next()) as { add: { addrs: { addr: unknown }[] } };
    expect(first.add.addrs.map((a) => a.addr)).toEqual([{ ip: { ipv4: 0x0a010001 }, port: 80 }]);

    cluster.apply(
      pod("web-1", {
        ...CLUSTER_POD,
        namespace: "ns",
        ip: "10.1.0.2",
        labels: {},
        ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(
        "web-1",
        "web",
        [
          podEndpoint("web-0", "10.1.0.1", { namespace: "ns", hostname: "web-0" }),
          podEndpoint("web-1", "10.1.0.2", { namespace: "ns", hostname: "web-1" }),
        ],
        { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] },
      ),
    );
    const second = (await stream.next()) as { add: { addrs: { addr: unknown }[] } };
    expect(second.add.addrs.map((a) => a.addr)).toEqual([{ ip: { ipv4: 0x0a010002 }, port: 80 }]);
    stream.cancel();
  });

  it("answers an unknown Service with the server's status", async () => {
    const end = await get(client, "nope.ns.svc.cluster.local:80").end;
    expect(end).toEqual({ code: grpc.status.NOT_FOUND, details: "Service nope.ns not found" });
  });

  it("counts its calls in the registry it was given", async () => {
    const text = await registry.metrics();
    expect(text).toMatch(
      /grpc_server_started_total\{grpc_type="server_stream",grpc_service="io.linkerd.proxy.destination.Destination",grpc_method="Get"\} 2/,
    );
  });

  it("ends open streams with OK when the context is closed", async () => {
    const stream = get(client, WEB);
    await stream.next();
    await destination.close();
    expect(await stream.end).toEqual({ code: grpc.status.OK, details: "" });
  });
});
