// How fast one endpoint change reaches many Get streams on the same service (one translation,
// one encoding, N writes). Run with `pnpm -F @destination/server bench`.
import { MemoryCluster } from "@destination/k8s-discovery";
import { create, DestinationClient, GetDestinationSchema } from "@destination/proto";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, bench, describe } from "vitest";
import {
  createServerLogger,
  type RunningDestinationServer,
  startDestinationServer,
} from "../src/index.js";
import { pod, service, slice } from "../src/testing/index.js";

const STREAMS = 2000;
const CONNECTIONS = 4;
const PODS = 10;

const cluster = new MemoryCluster();
let server: RunningDestinationServer;
const clients: DestinationClient[] = [];
let pending = 0;
let wake: () => void = () => {};
let flip = false;

function endpoints(extra: boolean) {
  const list = Array.from({ length: PODS }, (_, i) => ({ ip: `10.9.0.${i + 1}`, pod: `p-${i}` }));
  if (extra) list.push({ ip: "10.9.1.1", pod: "extra" });
  return slice("bench", "svc-1", "svc", [{ port: 8080 }], list);
}

/** Resolves once every stream has received one more message. */
function everyStreamReceives(): Promise<void> {
  pending = STREAMS;
  return new Promise((resolve) => {
    wake = resolve;
  });
}

beforeAll(async () => {
  cluster.apply(service("bench", "svc", [{ port: 8080 }]));
  for (let i = 0; i < PODS; i++) {
    cluster.apply(
      pod({ namespace: "bench", name: `p-${i}`, ip: `10.9.0.${i + 1}`, ports: [["h", 8080]] }),
    );
  }
  cluster.apply(pod({ namespace: "bench", name: "extra", ip: "10.9.1.1", ports: [["h", 8080]] }));
  cluster.apply(endpoints(false));
  server = await startDestinationServer({
    cluster,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    streamQueueCapacity: 1000,
    logger: createServerLogger({ level: "error" }),
  });
  for (let c = 0; c < CONNECTIONS; c++) {
    clients.push(
      new DestinationClient(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      }),
    );
  }
  const initial = everyStreamReceives();
  for (let i = 0; i < STREAMS; i++) {
    const client = clients[i % CONNECTIONS] as DestinationClient;
    const stream = client.get(
      create(GetDestinationSchema, { path: "svc.bench.svc.cluster.local:8080" }),
    );
    stream.on("data", () => {
      pending -= 1;
      if (pending === 0) wake();
    });
    stream.on("error", () => {});
  }
  await initial;
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.close();
  await server.close();
});

describe(`fan-out to ${STREAMS} Get streams`, () => {
  bench(
    "one endpoint added or removed, until every stream has it",
    async () => {
      flip = !flip;
      const done = everyStreamReceives();
      cluster.apply(endpoints(flip));
      await done;
    },
    { iterations: 50, warmupIterations: 5 },
  );
});
