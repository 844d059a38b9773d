import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { DestinationClient } from "@destination/proto/client";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManifestFolder } from "./support/manifest-folder.js";
import { assertBuilt, type SpawnedServer, spawnServer } from "./support/spawned-server.js";
import { adminGet } from "./support/test-server.js";

// `go tool pprof` is the client an operator points at upstream's admin port; it must read ours
// the same way. Go is on every machine that runs these tests (it builds the kube-apiserver).
const run = promisify(execFile);
const goToolPprof = (...args: string[]) =>
  run("go", ["tool", "pprof", ...args], { env: { ...process.env, PPROF_TMPDIR: "/tmp" } });

beforeAll(() => assertBuilt());

let folder: ManifestFolder | undefined;
let server: SpawnedServer | undefined;
afterEach(async () => {
  server?.child.kill("SIGTERM");
  await server?.exit;
  server = undefined;
  await folder?.dispose();
  folder = undefined;
});

async function serverWith(args: string[]): Promise<SpawnedServer> {
  folder = await ManifestFolder.create();
  await folder.write(
    "web.yaml",
    service("web", { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] }),
    pod("web-0", {
      ...CLUSTER_POD,
      namespace: "ns",
      ip: "10.3.0.1",
      labels: {},
      ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
    }),
    slice("web-1", "web", [podEndpoint("web-0", "10.3.0.1", { namespace: "ns" })], {
      namespace: "ns",
      ports: [{ port: 80, protocol: "TCP" }],
    }),
  );
  server = await spawnServer(["--manifests", folder.dir, ...args]);
  return server;
}

describe("-enable-pprof", () => {
  it("serves a CPU profile that go tool pprof reads, taken while the server works", async () => {
    const { adminPort, grpcPort } = await serverWith(["-enable-pprof=true"]);
    const profile = goToolPprof(
      "-top",
      "-nodefraction=0",
      "-nodecount=100000",
      `http://127.0.0.1:${adminPort}/debug/pprof/profile?seconds=3`,
    );
    // Work for the profile to see: rounds of Gets answered while it samples, each round on a
    // connection of its own (a connection that cancels streams fast is a rapid-reset attack).
    const until = Date.now() + 2_500;
    while (Date.now() < until) {
      const client = new DestinationClient(
        `127.0.0.1:${grpcPort}`,
        grpc.credentials.createInsecure(),
      );
      const streams = Array.from({ length: 100 }, () => get(client, "web.ns.svc.cluster.local:80"));
      await Promise.all(streams.map((stream) => stream.next()));
      client.close();
    }
    const { stdout } = await profile;
    expect(stdout).toMatch(/^Type: cpu$/m);
    expect(stdout).toMatch(/Duration: 3(\.\d+)?s/);
    // Symbolized JavaScript frames: the server's own Get handler is named among them.
    expect(stdout).toMatch(/ handleGet$/m);
  });

  it("serves a heap profile of live objects that go tool pprof reads", async () => {
    const { adminPort } = await serverWith(["-enable-pprof=true"]);
    const { stdout } = await goToolPprof(
      "-top",
      "-sample_index=inuse_space",
      `http://127.0.0.1:${adminPort}/debug/pprof/heap`,
    );
    expect(stdout).toMatch(/^Type: inuse_space$/m);
    expect(stdout).toMatch(/Showing nodes accounting for [\d.]+[kM]B/);
  });

  it("takes one CPU profile at a time, as Go does", async () => {
    const { adminPort } = await serverWith(["-enable-pprof=true"]);
    let firstDone = false;
    const first = adminGet(adminPort, "/debug/pprof/profile?seconds=3").finally(() => {
      firstDone = true;
    });
    // Asked again until the first is seen running (no sleep: on a loaded machine the first may
    // start late); each refused request answers at once.
    let second = await adminGet(adminPort, "/debug/pprof/profile?seconds=1");
    while (second.status !== 500 && !firstDone) {
      second = await adminGet(adminPort, "/debug/pprof/profile?seconds=1");
    }
    expect(second).toEqual({
      status: 500,
      body: "Could not enable CPU profiling: cpu profiling already in use\n",
    });
    expect((await first).status).toBe(200);
  });

  it("names what a Node process cannot profile instead of answering nothing", async () => {
    const { adminPort } = await serverWith(["-enable-pprof=true"]);
    const index = await adminGet(adminPort, "/debug/pprof/");
    expect(index.status).toBe(200);
    expect(index.body).toContain('href="heap?debug=0"');
    expect(await adminGet(adminPort, "/debug/pprof/goroutine")).toMatchObject({
      status: 404,
      body: expect.stringMatching(/^Unknown profile: goroutine is not available here/),
    });
    const cmdline = await adminGet(adminPort, "/debug/pprof/cmdline");
    expect(cmdline.body.split("\0")).toContain("-enable-pprof=true");
  });

  it("serves nothing under /debug/pprof/ without the flag (upstream's default)", async () => {
    const { adminPort } = await serverWith([]);
    for (const path of ["/debug/pprof/", "/debug/pprof/profile?seconds=1", "/debug/pprof/heap"]) {
      expect((await adminGet(adminPort, path)).status).toBe(404);
    }
  });
});
