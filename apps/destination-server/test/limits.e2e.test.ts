import { connect as connectHttp2 } from "node:http2";
import { MemoryCluster } from "@destination/k8s-discovery";
import { DestinationClient } from "@destination/proto/client";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server.js";

const WEB = "web.ns.svc.cluster.local:80";

function webCluster(): MemoryCluster {
  const cluster = new MemoryCluster();
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
  return cluster;
}

/** A client on a connection of its own. */
function oneConnection(port: number, options: grpc.ClientOptions = {}): DestinationClient {
  return new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
    ...options,
  });
}

let server: TestServer | undefined;
const clients: DestinationClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

describe("request size limit", () => {
  it("refuses a gzip request that inflates past the limit, then serves the next Get", async () => {
    // The default limit, 4 MiB. A client that gzips every message it sends: an 8 MiB path is
    // about 8 KiB on the wire, so only the inflated size exceeds the limit.
    server = await startTestServer({ cluster: webCluster() });
    const gzip = oneConnection(server.grpcPort, { "grpc.default_compression_algorithm": 2 });
    clients.push(gzip);
    const bomb = get(gzip, `${"a".repeat(8 * 1024 * 1024)}.ns.svc.cluster.local:80`);
    const end = await bomb.end;
    expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(end.details).toMatch(/decompresses to a size larger than 4194304/);

    // The same connection, and then a plain one, still get answers.
    const next = get(gzip, WEB);
    expect(await next.next()).toHaveProperty("add");
    next.cancel();
    const plain = get(server.client, WEB);
    expect(await plain.next()).toHaveProperty("add");
    plain.cancel();
  });

  it("refuses an uncompressed request over the limit", async () => {
    server = await startTestServer({ cluster: webCluster(), maxReceiveMessageLength: 1024 });
    const end = await get(server.client, `${"a".repeat(4096)}.ns.svc.cluster.local:80`).end;
    expect(end.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const plain = get(server.client, WEB);
    expect(await plain.next()).toHaveProperty("add");
    plain.cancel();
  });
});

describe("streams per connection", () => {
  it("advertises the cap in its HTTP/2 settings, 10,000 by default", async () => {
    server = await startTestServer({ cluster: webCluster() });
    expect(await advertisedMaxStreams(server.grpcPort)).toBe(10_000);
  });

  it("holds a connection's third stream at a cap of 2; once one ends, the connection serves again", async () => {
    server = await startTestServer({ cluster: webCluster(), maxConcurrentStreams: 2 });
    expect(await advertisedMaxStreams(server.grpcPort)).toBe(2);
    const client = oneConnection(server.grpcPort);
    clients.push(client);
    const first = get(client, WEB);
    const second = get(client, WEB);
    await Promise.all([first.next(), second.next()]);
    // The client holds the third stream: nothing answers it while two are open.
    const third = get(client, WEB);
    let thirdSettled = false;
    const thirdOutcome = third.next().then(
      (message) => ({ message }),
      (error: unknown) => ({ error }),
    );
    void thirdOutcome.then(() => {
      thirdSettled = true;
    });
    // Another connection is not held back by this one's cap.
    const other = get(server.client, WEB);
    await other.next();
    other.cancel();
    expect(thirdSettled).toBe(false);
    first.cancel();
    // The held stream leaves with the reset that freed its slot, in one write. Node 24 and later
    // count the reset stream until its close callback has run, so the server may refuse the held
    // stream (RESOURCE_EXHAUSTED, from HTTP/2 ENHANCE_YOUR_CALM); Node 20 served it. Either way
    // the connection stays usable: the next stream is served.
    const outcome = await thirdOutcome;
    if ("error" in outcome) {
      expect(String(outcome.error)).toMatch(/stream ended \(8 /);
    } else {
      expect(outcome.message).toHaveProperty("add");
    }
    third.cancel();
    const fourth = get(client, WEB);
    expect(await fourth.next()).toHaveProperty("add");
    second.cancel();
    fourth.cancel();
  });
});

/** SETTINGS_MAX_CONCURRENT_STREAMS as the server sends it, read with node's HTTP/2 client. */
function advertisedMaxStreams(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    session.once("error", reject);
    session.once("remoteSettings", (settings) => {
      resolve(settings.maxConcurrentStreams);
      session.close();
    });
  });
}

/** A Get stream opened with node's HTTP/2 client whose request message is never sent. */
function getWithoutRequest(
  session: ReturnType<typeof connectHttp2>,
): Promise<{ status: string | undefined; message: string | undefined }> {
  const stream = session.request(
    {
      ":method": "POST",
      ":path": "/io.linkerd.proxy.destination.Destination/Get",
      "content-type": "application/grpc",
      te: "trailers",
    },
    { endStream: false },
  );
  return new Promise((resolve, reject) => {
    let status: string | undefined;
    let message: string | undefined;
    const read = (headers: Record<string, unknown>) => {
      if (headers["grpc-status"] !== undefined) status = String(headers["grpc-status"]);
      if (headers["grpc-message"] !== undefined)
        message = decodeURIComponent(String(headers["grpc-message"]));
    };
    stream.on("response", read);
    stream.on("trailers", read);
    stream.on("data", () => {});
    stream.on("error", reject);
    // The server's side ends with its status; ours is still open (no request was sent).
    stream.on("end", () => {
      resolve({ status, message });
      stream.close();
    });
  });
}

describe("calls waiting for their request message", () => {
  it("past the server-wide bound the oldest is ended; the rest end at the timeout; real Gets are served", async () => {
    server = await startTestServer({
      cluster: webCluster(),
      maxPendingRequests: 3,
      requestMessageTimeoutMs: 1_000,
    });
    // Two connections: the bound is the server's, not a connection's.
    const first = connectHttp2(`http://127.0.0.1:${server.grpcPort}`);
    const second = connectHttp2(`http://127.0.0.1:${server.grpcPort}`);
    try {
      await Promise.all([first, second].map((s) => new Promise((ok) => s.once("connect", ok))));
      const oldest = getWithoutRequest(first);
      const held = [getWithoutRequest(first)];
      // The ping's ack comes after the server has handled the two streams before it.
      await new Promise((resolve, reject) => first.ping((err) => (err ? reject(err) : resolve(0))));
      held.push(getWithoutRequest(second), getWithoutRequest(second));
      const evicted = await oldest;
      expect(evicted.status).toBe(String(grpc.status.RESOURCE_EXHAUSTED));
      expect(evicted.message).toMatch(/too many calls waiting for their request message \(3\)/);
      // A client that sends its request is served at the bound (the next oldest makes room).
      const served = get(server.client, WEB);
      expect(await served.next()).toHaveProperty("add");
      served.cancel();
      const ended = await Promise.all(held);
      expect(ended.map((e) => e.status)).toEqual([
        String(grpc.status.RESOURCE_EXHAUSTED),
        String(grpc.status.DEADLINE_EXCEEDED),
        String(grpc.status.DEADLINE_EXCEEDED),
      ]);
      expect(ended[1]?.message).toMatch(/no request message within 1000 ms/);
      expect(await server.metric("grpc_server_requests_refused_total", { reason: "pending" })).toBe(
        2,
      );
      expect(await server.metric("grpc_server_requests_refused_total", { reason: "timeout" })).toBe(
        2,
      );
    } finally {
      first.close();
      second.close();
    }
  });
});
