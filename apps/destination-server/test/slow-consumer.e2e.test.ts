import { MemoryCluster } from "@destination/k8s-discovery";
import { DestinationClient } from "@destination/proto/client";
import {
  CLUSTER_POD,
  pod,
  podEndpoint,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { get, getProfile } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import { afterEach, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server.js";

const NS = "busy";
const PATH = "busy.busy.svc.cluster.local:8080";
const BATCH = 20;

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A client on a connection of its own, so that one stalled stream cannot hold the other's. */
function ownConnection(port: number): DestinationClient {
  return new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
  });
}

it("ends a stream that stops reading with OK while another keeps every update", async () => {
  const cluster = new MemoryCluster();
  cluster.apply(service("busy", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }));
  server = await startTestServer({ cluster, streamQueueCapacity: 4 });
  const fastClient = ownConnection(server.grpcPort);
  const slowClient = ownConnection(server.grpcPort);
  const fast = get(fastClient, PATH);
  const slow = get(slowClient, PATH);
  await server.waitForMetric(
    "endpoints_subscribers",
    { namespace: NS, service: "busy", port: "8080" },
    2,
  );
  slow.stream.pause();

  // Grow the service in batches of pods until the stalled stream overflows. Each round waits for
  // the fast stream's update, so the two streams see exactly the same sequence of changes.
  const endpoints: { ip: string; pod: string }[] = [];
  let rounds = 0;
  while (
    (await server.metric("endpoint_updates_queue_overflow", { service: PATH })) === undefined
  ) {
    rounds += 1;
    if (rounds > 400) throw new Error("the stalled stream never overflowed");
    for (let i = 0; i < BATCH; i++) {
      const n = endpoints.length;
      const ip = `10.${100 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
      const name = `busy-${n}-with-a-long-name-to-fill-flow-control-windows-quickly`;
      cluster.apply(
        pod(name, {
          ...CLUSTER_POD,
          namespace: NS,
          ip,
          labels: {},
          ports: [{ name: "x", containerPort: 8080, protocol: "TCP" }],
        }),
      );
      endpoints.push({ ip, pod: name });
    }
    cluster.apply(
      slice(
        "busy-1",
        "busy",
        endpoints.map((e) => podEndpoint(e.pod, e.ip, { namespace: NS })),
        { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
      ),
    );
    const update = (await fast.next()) as { add: { addrs: unknown[] } };
    expect(update.add.addrs).toHaveLength(BATCH);
  }

  // The stalled client, once it reads again, gets what was already in flight and then OK.
  slow.stream.resume();
  expect(await slow.end).toEqual({ code: grpc.status.OK, details: "" });
  expect(slow.received.length).toBeLessThan(rounds + 1);
  expect(
    await server.metric("endpoint_updates_queue_overflow", { service: PATH }),
  ).toBeGreaterThanOrEqual(1);

  // The fast stream is untouched and still follows changes.
  cluster.apply(
    slice(
      "busy-1",
      "busy",
      endpoints.slice(1).map((e) => podEndpoint(e.pod, e.ip, { namespace: NS })),
      { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
    ),
  );
  expect(await fast.next()).toEqual({
    remove: { addrs: [{ ip: { ipv4: (10 << 24) + (100 << 16) }, port: 8080 }] },
  });
  fast.cancel();
  fastClient.close();
  slowClient.close();
});

it("counts a stalled service-profile stream's overflow by fqn and port", async () => {
  const fqn = "busy.busy.svc.cluster.local";
  const cluster = new MemoryCluster();
  cluster.apply(service("busy", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }));
  server = await startTestServer({ cluster, streamQueueCapacity: 2 });
  const client = ownConnection(server.grpcPort);
  const stalled = getProfile(client, PATH);
  await server.waitForMetric("profile_subscribers", { namespace: NS, profile: fqn }, 1);
  stalled.stream.pause();
  // Large profiles fill the flow-control windows in a few messages; every new version is sent.
  const routes = Array.from({ length: 200 }, (_, i) => ({
    name: `route-${i}-with-a-name-long-enough-to-weigh-something`,
    condition: { pathRegex: `/api/v1/resources/${i}/.*` },
  }));
  const labels = { fqn, port: "8080" };
  for (
    let version = 0;
    (await server.metric("profile_updates_queue_overflow", labels)) === undefined;
    version++
  ) {
    if (version > 500) throw new Error("the stalled stream never overflowed");
    cluster.apply(
      serviceProfile(
        fqn,
        {
          routes: routes.map((r) => ({ ...r, isRetryable: version % 2 === 0 })),
        },
        { namespace: NS },
      ),
    );
  }
  stalled.stream.resume();
  expect(await stalled.end).toEqual({ code: grpc.status.OK, details: "" });
  client.close();
});

it("counts a stalled endpoint-profile stream's overflow once", async () => {
  const cluster = new MemoryCluster();
  const running = pod("flappy", {
    ...CLUSTER_POD,
    namespace: NS,
    ip: "10.7.0.1",
    labels: {},
    ports: [{ name: "x", containerPort: 8080, protocol: "TCP" }],
  });
  cluster.apply(running);
  server = await startTestServer({ cluster, streamQueueCapacity: 2 });
  const client = ownConnection(server.grpcPort);
  const stalled = getProfile(client, "10.7.0.1:8080");
  await stalled.next();
  stalled.stream.pause();
  // Every start and stop of the pod is a new endpoint profile (attached, then bare).
  for (
    let flip = 0;
    ((await server.metric("endpoint_profile_updates_queue_overflow")) ?? 0) < 1;
    flip++
  ) {
    if (flip > 5000) throw new Error("the stalled stream never overflowed");
    cluster.apply({
      ...running,
      status: { ...running.status, phase: flip % 2 === 0 ? "Pending" : "Running" },
    });
  }
  // Later refusals are not counted: the stream is already ending.
  for (let flip = 0; flip < 10; flip++) {
    cluster.apply({
      ...running,
      status: { ...running.status, phase: flip % 2 === 0 ? "Pending" : "Running" },
    });
  }
  expect(await server.metric("endpoint_profile_updates_queue_overflow")).toBe(1);
  stalled.stream.resume();
  expect(await stalled.end).toEqual({ code: grpc.status.OK, details: "" });
  client.close();
});
