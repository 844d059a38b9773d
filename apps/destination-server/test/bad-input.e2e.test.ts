import { MemoryCluster } from "@destination/k8s-discovery";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, getProfile, pod, type StreamRecorder, service, slice } from "../src/testing/index.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

let server: TestServer;

beforeAll(async () => {
  const cluster = new MemoryCluster();
  cluster.apply(service("ns", "web", [{ port: 80 }], { clusterIP: "10.96.0.10" }));
  cluster.apply(pod({ namespace: "ns", name: "web-0", ip: "10.1.0.1", ports: [["h", 80]] }));
  cluster.apply(
    slice(
      "ns",
      "web-1",
      "web",
      [{ port: 80 }],
      [{ ip: "10.1.0.1", pod: "web-0", hostname: "web-0" }],
    ),
  );
  server = await startTestServer({ cluster, defaultOpaquePorts: new Set([3306]) });
});
afterAll(async () => {
  await server.close();
});

/** Authorities: anything at all, and near misses of the valid shapes. */
const label = fc.oneof(
  fc.constantFrom("web", "ns", "svc", "web-0", "", "WEB", "cluster", "local"),
  fc.string(),
);
const host = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.array(label, { maxLength: 7 }).map((labels) => labels.join(".")),
  fc.constantFrom(
    "web.ns.svc.cluster.local",
    "web-0.web.ns.svc.cluster.local",
    "[::1]",
    "[fe80::1%eth0]",
  ),
);
const port = fc.oneof(
  fc.integer({ min: -10, max: 70000 }).map(String),
  fc.constantFrom("", "+80", "0080", "http", "99999999999999999999", "8_0"),
  fc.string(),
);
const authority = fc.oneof(
  fc.string(),
  fc.tuple(host, port).map(([h, p]) => `${h}:${p}`),
  host,
);
const token = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.json(),
  fc
    .record({ ns: fc.string(), nodeName: fc.string(), pod: fc.string() })
    .map((t) => JSON.stringify(t)),
  fc.string().map((ns) => `ns:${ns}`),
);

/** The first message, or the end status: every request gets one or the other promptly. */
async function outcome(recorder: StreamRecorder<never>) {
  const result = await Promise.race([
    recorder.next().then((message) => ({ message })),
    recorder.end.then((end) => ({ end })),
  ]);
  recorder.cancel();
  return result;
}

describe("malformed requests", () => {
  it("Get answers any path and token with a stream or a documented error", async () => {
    await fc.assert(
      fc.asyncProperty(authority, token, async (path, contextToken) => {
        const result = await outcome(
          get(server.client, path, contextToken) as StreamRecorder<never>,
        );
        if ("end" in result) {
          const { code, details } = result.end;
          expect([status.INVALID_ARGUMENT, status.NOT_FOUND]).toContain(code);
          if (code === status.INVALID_ARGUMENT) {
            expect(
              details === `Invalid authority: ${path}` ||
                details.startsWith("IP queries not supported by Get API: host="),
            ).toBe(true);
          } else {
            expect(details).toMatch(/^Service .* not found$/s);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("GetProfile answers any path and token with a stream or a documented error", async () => {
    await fc.assert(
      fc.asyncProperty(authority, token, async (path, contextToken) => {
        const result = await outcome(
          getProfile(server.client, path, contextToken) as StreamRecorder<never>,
        );
        if ("end" in result) {
          const { code, details } = result.end;
          expect([status.INVALID_ARGUMENT, status.NOT_FOUND, status.UNKNOWN]).toContain(code);
          if (code === status.INVALID_ARGUMENT) {
            expect(details).toMatch(
              /^(invalid authority: "|invalid service "|Invalid authority: )/,
            );
          } else if (code === status.UNKNOWN) {
            expect(details).toMatch(/^(service|pod) ".*" not found$/s);
          } else {
            expect(details).toMatch(/^no pod found in EndpointSlices of Service /);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("still serves normally afterwards", async () => {
    const stream = get(server.client, "web.ns.svc.cluster.local:80");
    expect(await stream.next()).toMatchObject({ add: { metricLabels: { service: "web" } } });
    stream.cancel();
  });
});
