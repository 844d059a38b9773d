import { MemoryCluster } from "@destination/k8s-discovery";
import { DestinationClient } from "@destination/proto/client";
import { service } from "@destination/test-support/builders";
import { getProfile, type StreamRecorder } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./support/server-per-test.js";
import type { TestServer } from "./support/test-server.js";
import { metricValue } from "./support/test-server.js";

const NS = "emojivoto";
const WEB_FQN = "web-svc.emojivoto.svc.cluster.local";
const STREAMS = 10_000;
const CONNECTIONS = 4;
const BATCH = 500;

const startServer = serverPerTest();

/** Live series of a metric family in Prometheus text. */
function seriesCount(text: string, name: string): number {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `)).length;
}

interface Scrape {
  readonly publishers: number | undefined;
  readonly subscriberSeries: number;
  readonly updateSeries: number;
  readonly opaquePortsPublishers: number | undefined;
}

async function scrape(server: TestServer): Promise<Scrape> {
  const text = (await server.admin("/metrics")).body;
  return {
    publishers: metricValue(text, "profile_publishers"),
    subscriberSeries: seriesCount(text, "profile_subscribers"),
    updateSeries: seriesCount(text, "profile_updates"),
    opaquePortsPublishers: metricValue(text, "opaque_ports_publishers"),
  };
}

/** Polls until `check` holds; fails with the last scrape after `timeoutMs`. */
async function until(
  server: TestServer,
  check: (s: Scrape) => boolean,
  timeoutMs: number,
): Promise<Scrape> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await scrape(server);
    if (check(s)) return s;
    if (Date.now() > deadline) {
      throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(s)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("state bounded by client input", () => {
  it(`${STREAMS} GetProfile streams from as many token namespaces leave no publisher or series behind`, async () => {
    const cluster = new MemoryCluster();
    cluster.apply(
      service("web-svc", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      }),
    );
    const server = await startServer({ cluster });
    // Separate connections: without a local subchannel pool grpc-js would share one.
    const clients = Array.from(
      { length: CONNECTIONS },
      () =>
        new DestinationClient(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure(), {
          "grpc.use_local_subchannel_pool": 1,
        }),
    );
    try {
      const before = await scrape(server);
      const streams: StreamRecorder<never>[] = [];
      for (let start = 0; start < STREAMS; start += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, STREAMS - start) }, (_, j) => {
          const i = start + j;
          const client = clients[i % CONNECTIONS] as DestinationClient;
          return getProfile(client, `${WEB_FQN}:80`, JSON.stringify({ ns: `ns-${i}` }));
        });
        // The first profile means the stream's subscriptions are in place.
        await Promise.all(batch.map((stream) => stream.next(30_000)));
        streams.push(...(batch as StreamRecorder<never>[]));
      }
      // One publisher per token namespace, plus the service's own namespace.
      const open = await until(
        server,
        (s) => s.publishers === (before.publishers ?? 0) + STREAMS + 1,
        30_000,
      );
      expect(open.subscriberSeries).toBe(before.subscriberSeries + STREAMS + 1);
      expect(open.opaquePortsPublishers).toBe((before.opaquePortsPublishers ?? 0) + 1);

      for (const stream of streams) stream.cancel();
      const after = await until(
        server,
        (s) =>
          s.publishers === before.publishers &&
          s.subscriberSeries === before.subscriberSeries &&
          s.updateSeries === before.updateSeries &&
          s.opaquePortsPublishers === before.opaquePortsPublishers,
        60_000,
      );
      console.log(
        `profile_publishers ${before.publishers} -> ${open.publishers} -> ${after.publishers}; ` +
          `profile_subscribers series ${before.subscriberSeries} -> ${open.subscriberSeries} -> ${after.subscriberSeries}`,
      );
      expect(after).toEqual(before);
    } finally {
      for (const client of clients) client.close();
    }
  }, 180_000);
});
