import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createManifestsCluster, type ManifestsCluster } from "@destination/k8s-discovery";
import { DestinationClient } from "@destination/proto/client";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get, getProfile, type StreamRecorder } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authority, KNOWN_NAMESPACE, manifestFile, token } from "./support/fuzz-inputs.js";
import { ManifestFolder } from "./support/manifest-folder.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

// A fixed seed keeps the unit suite repeatable; `pnpm fuzz` raises the run count (FUZZ_RUNS)
// and may pick a seed (FUZZ_SEED), and reads the summary this file writes to FUZZ_SUMMARY.
// RUNS requests in all (half Get, half GetProfile), and about as many manifest documents.
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const SETTINGS = { numRuns: Math.ceil(RUNS / 2), seed: SEED, endOnFailure: true };
// A bound for a run that hangs: thousands of inputs take a minute or more on a loaded two-core
// machine. Long runs take many minutes: no per-test timeout then.
const TIMEOUT_MS = process.env.FUZZ_RUNS === undefined ? 180_000 : 0;
const KNOWN = `web.${KNOWN_NAMESPACE}.svc.cluster.local:80`;

/** Errors upstream also logs for bad requests; any other error is a bug the input found. */
const EXPECTED_ERRORS = new Set([
  "context token is invalid",
  "subscriber's node is not in the cache; no zone for topology hints",
]);

let server: TestServer;
/** Every random request goes over this one connection, cancelled after its first message. */
let client: DestinationClient;
let cluster: ManifestsCluster;
let folder: ManifestFolder;
/** The known Service's first Get message before any random input. */
let expected: unknown;
const summary = {
  requests: 0,
  manifestFiles: 0,
  manifestDocuments: 0,
  codes: {} as Record<string, number>,
  /** Lookups asked again because node closed the shared connection (its reset budget). */
  reconnects: 0,
  /** Errors the server logged that no bad request explains: a bug the input found. */
  crashes: [] as string[],
};

beforeAll(async () => {
  folder = await ManifestFolder.create();
  await folder.write(
    "known.yaml",
    service("web", {
      namespace: KNOWN_NAMESPACE,
      ports: [{ port: 80, protocol: "TCP" }],
      clusterIP: "10.96.0.10",
    }),
    pod("web-0", {
      ...CLUSTER_POD,
      namespace: KNOWN_NAMESPACE,
      ip: "10.1.0.1",
      labels: {},
      ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
    }),
    slice(
      "web-1",
      "web",
      [podEndpoint("web-0", "10.1.0.1", { namespace: KNOWN_NAMESPACE, hostname: "web-0" })],
      { namespace: KNOWN_NAMESPACE, ports: [{ port: 80, protocol: "TCP" }] },
    ),
  );
  // Not watching: each random file is loaded by an explicit reload, so every run sees its own.
  cluster = createManifestsCluster({ dir: folder.dir, watch: false, resyncMs: 0, debounceMs: 1 });
  server = await startTestServer({ cluster, defaultOpaquePorts: new Set([3306]) });
  client = oneConnection(server.grpcPort);
  expected = await firstMessage();
});
afterAll(async () => {
  client?.close();
  await server?.close();
  await cluster?.stop();
  await folder?.dispose();
  const file = process.env.FUZZ_SUMMARY;
  if (file !== undefined)
    await writeFile(file, JSON.stringify({ ...summary, runs: RUNS, seed: SEED }));
});

async function firstMessage(): Promise<unknown> {
  const stream = get(server.client, KNOWN);
  const message = await stream.next();
  stream.cancel();
  return message;
}

function counted(code: number): void {
  const name = grpc.status[code] ?? String(code);
  summary.codes[name] = (summary.codes[name] ?? 0) + 1;
}

/** The first message, or the end status: every request gets one or the other promptly. */
async function outcome(recorder: StreamRecorder<never>) {
  const result = await Promise.race([
    recorder.next().then((message) => ({ message })),
    recorder.end.then((end) => ({ end })),
  ]);
  recorder.cancel();
  return result;
}

/**
 * A lookup asked once more when node closed the whole connection under it. node's HTTP/2
 * (nghttp2) closes a connection that resets streams faster than its budget (a burst of 1,000,
 * then about 33 a second): its guard against the 2023 rapid-reset attack, which grpc-js' server
 * cannot turn off or widen (docs/decisions/0008). Every lookup here is cancelled after its first
 * message, so a long run spends that budget; the lookup in flight then fails with the
 * connection, the client reconnects, and a proxy asks again. The second answer is checked as
 * the first would have been, so an input that itself closes the connection still fails.
 */
async function askOnce(ask: () => StreamRecorder<never>) {
  const result = await outcome(ask());
  if (!("end" in result) || !SESSION_CLOSED.test(result.end.details)) return result;
  summary.reconnects++;
  return outcome(ask());
}
const SESSION_CLOSED = /Session closed/;
/** At most one closed connection per burst of the reset budget: never one in a few lookups. */
const maxReconnects = (requests: number) => Math.ceil(requests / 1000);

describe("malformed requests", () => {
  it(
    "Get answers any path and token with a stream or a documented error",
    async () => {
      await fc.assert(
        fc.asyncProperty(authority, token, async (path, contextToken) => {
          const result = await askOnce(
            () => get(client, path, contextToken) as StreamRecorder<never>,
          );
          summary.requests++;
          counted("end" in result ? result.end.code : grpc.status.OK);
          if ("end" in result) {
            const { code, details } = result.end;
            expect(
              [grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND],
              `${code} ${details}`,
            ).toContain(code);
            if (code === grpc.status.INVALID_ARGUMENT) {
              expect(
                details === `Invalid authority: ${path}` ||
                  details.startsWith("IP queries not supported by Get API: host="),
              ).toBe(true);
            } else {
              expect(details).toMatch(/^Service .* not found$/s);
            }
          }
        }),
        SETTINGS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "GetProfile answers any path and token with a stream or a documented error",
    async () => {
      await fc.assert(
        fc.asyncProperty(authority, token, async (path, contextToken) => {
          const result = await askOnce(
            () => getProfile(client, path, contextToken) as StreamRecorder<never>,
          );
          summary.requests++;
          counted("end" in result ? result.end.code : grpc.status.OK);
          if ("end" in result) {
            const { code, details } = result.end;
            expect(
              [grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND, grpc.status.UNKNOWN],
              `${code} ${details}`,
            ).toContain(code);
            if (code === grpc.status.INVALID_ARGUMENT) {
              expect(details).toMatch(
                /^(invalid authority: "|invalid service "|Invalid authority: )/,
              );
            } else if (code === grpc.status.UNKNOWN) {
              expect(details).toMatch(/^(service|pod) ".*" not found$/s);
            } else {
              expect(details).toMatch(/^no pod found in EndpointSlices of Service /);
            }
          }
        }),
        SETTINGS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "loads any manifest file without failing, skipping what is invalid",
    async () => {
      await fc.assert(
        fc.asyncProperty(manifestFile, async ({ ext, bytes, documents }) => {
          // One file per extension, rewritten each run: what the previous run's file defined is
          // deleted or updated by this reload.
          await writeFile(join(folder.dir, `fuzz.${ext}`), bytes);
          await cluster.reload();
          summary.manifestFiles++;
          summary.manifestDocuments += documents;
        }),
        { ...SETTINGS, numRuns: Math.ceil(RUNS / 3) },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "answers thousands of lookups cancelled one after another, on one client",
    async () => {
      // Cancelled as fast as the client can: each lookup may be asked twice (askOnce), and
      // every one is answered.
      const lookups = oneConnection(server.grpcPort);
      const before = summary.reconnects;
      try {
        for (let i = 0; i < 3000; i++) {
          const result = await askOnce(() => get(lookups, KNOWN) as StreamRecorder<never>);
          expect(result).toEqual({ message: expected });
        }
        expect(summary.reconnects - before).toBeLessThanOrEqual(maxReconnects(3000));
      } finally {
        lookups.close();
      }
    },
    TIMEOUT_MS,
  );

  it("still serves the known Service exactly as before, having logged no error", async () => {
    expect(await firstMessage()).toEqual(expected);
    expect(summary.reconnects).toBeLessThanOrEqual(maxReconnects(summary.requests + 3000));
    summary.crashes = server.logs.filter((line) => {
      const record = JSON.parse(line) as { level: string; msg: string };
      return record.level === "error" && !EXPECTED_ERRORS.has(record.msg);
    });
    expect(summary.crashes).toEqual([]);
  });
});

/** A client on a connection of its own (without a local pool, clients to one target share one). */
function oneConnection(port: number): DestinationClient {
  return new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.use_local_subchannel_pool": 1,
  });
}
