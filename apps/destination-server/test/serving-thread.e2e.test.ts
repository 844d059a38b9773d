import { fileURLToPath } from "node:url";
import { RawDestinationClient } from "@destination/test-support/raw-destination-client";
import { request } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuilt, type SpawnedServer, spawnServer } from "./support/spawned-server.js";
import { adminGet } from "./support/test-server.js";

const EXAMPLES = fileURLToPath(new URL("../../../examples", import.meta.url));
const TOKEN = JSON.stringify({ ns: "emojivoto", nodeName: "node-1" });

/** The first message of a stream, or the status it ended with before one. */
function firstAnswer(
  client: RawDestinationClient,
  rpc: "get" | "getProfile",
  path: string,
): Promise<{ bytes: string } | { code: number; details: string }> {
  return new Promise((resolve) => {
    const stream = client[rpc](request(path, TOKEN));
    stream.on("data", (bytes: Buffer) => {
      resolve({ bytes: bytes.toString("hex") });
      stream.cancel();
    });
    stream.on("error", (err: grpc.ServiceError) =>
      resolve({ code: err.code, details: err.details }),
    );
  });
}

/** Get streams subscribed to any Service: the sum of `endpoints_subscribers` (no series: none). */
async function subscribers(server: SpawnedServer): Promise<number> {
  const { body } = await adminGet(server.adminPort, "/metrics");
  let sum = 0;
  for (const match of body.matchAll(/^endpoints_subscribers(?:\{[^}]*\})? (\S+)$/gm)) {
    sum += Number(match[1]);
  }
  return sum;
}

beforeAll(() => assertBuilt());

describe("-grpc-serving-thread", () => {
  let threaded: SpawnedServer;
  let single: SpawnedServer;
  let threadedClient: RawDestinationClient;
  let singleClient: RawDestinationClient;

  beforeAll(async () => {
    [threaded, single] = await Promise.all([
      spawnServer(["--manifests", EXAMPLES, "-grpc-serving-thread=true"]),
      spawnServer(["--manifests", EXAMPLES, "-grpc-serving-thread=false"]),
    ]);
    const insecure = grpc.credentials.createInsecure();
    threadedClient = new RawDestinationClient(`127.0.0.1:${threaded.grpcPort}`, insecure);
    singleClient = new RawDestinationClient(`127.0.0.1:${single.grpcPort}`, insecure);
  });
  afterAll(() => {
    threadedClient?.close();
    singleClient?.close();
    for (const s of [threaded, single]) s?.child.kill("SIGKILL");
  });
  beforeEach(async () => {
    for (const s of [threaded, single]) {
      await eventually(async () => expect(await subscribers(s)).toBe(0));
    }
  });

  it("says which thread serves gRPC", () => {
    expect(threaded.logs()).toMatch(/"msg":"gRPC server listening".*"thread":"serving"/);
    expect(single.logs()).not.toMatch(/"thread":"serving"/);
  });

  it.each([
    ["get", "web-svc.emojivoto.svc.cluster.local:80"],
    ["get", "voting-svc.emojivoto.svc.cluster.local:8080"],
    ["getProfile", "web-svc.emojivoto.svc.cluster.local:80"],
    ["getProfile", "10.244.1.10:8080"],
    ["get", "nope.emojivoto.svc.cluster.local:80"],
    ["get", "10.244.1.10:8080"],
    ["getProfile", "not an authority"],
  ] as const)("answers %s %s with the bytes and statuses of one thread", async (rpc, path) => {
    const [fromThread, fromOne] = await Promise.all([
      firstAnswer(threadedClient, rpc, path),
      firstAnswer(singleClient, rpc, path),
    ]);
    expect(fromThread).toEqual(fromOne);
  });

  it("releases a subscription when the client cancels", async () => {
    const stream = threadedClient.get(request("emoji-svc.emojivoto.svc.cluster.local:8080", TOKEN));
    stream.on("error", () => {});
    await new Promise((resolve) => stream.once("data", resolve));
    expect(await subscribers(threaded)).toBe(1);
    stream.cancel();
    await eventually(async () => expect(await subscribers(threaded)).toBe(0));
  });

  it("serves gRPC health as SERVING", async () => {
    const health = new grpc.Client(
      `127.0.0.1:${threaded.grpcPort}`,
      grpc.credentials.createInsecure(),
    );
    const response = await new Promise<Buffer | undefined>((resolve, reject) =>
      health.makeUnaryRequest(
        "/grpc.health.v1.Health/Check",
        () => Buffer.alloc(0),
        (b: Buffer) => b,
        {},
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    );
    health.close();
    // HealthCheckResponse { status: SERVING }: field 1, varint 1.
    expect(response?.toString("hex")).toBe("0801");
  });

  it("ends open streams with OK on SIGTERM and exits 0", async () => {
    const server = await spawnServer(["--manifests", EXAMPLES, "-grpc-serving-thread"]);
    const client = new RawDestinationClient(
      `127.0.0.1:${server.grpcPort}`,
      grpc.credentials.createInsecure(),
    );
    try {
      const stream = client.get(request("web-svc.emojivoto.svc.cluster.local:80", TOKEN));
      stream.on("data", () => {});
      stream.on("error", () => {});
      const status = new Promise<number>((resolve) =>
        stream.on("status", (s: grpc.StatusObject) => resolve(s.code)),
      );
      await new Promise((resolve) => stream.once("data", resolve));
      server.child.kill("SIGTERM");
      expect(await status).toBe(grpc.status.OK);
      expect((await server.exit).code).toBe(0);
      expect(server.logs()).not.toMatch(/serving thread (failed|exited)/);
    } finally {
      client.close();
      server.child.kill("SIGKILL");
    }
  });
});
