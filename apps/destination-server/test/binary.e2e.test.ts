import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DestinationClient } from "@destination/proto/client";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import { eventually } from "@destination/vitest-config/eventually";
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CHART_MESHED_HTTP2_CLIENT_PARAMS } from "../src/config/server-flags.js";
import { VERSION } from "../src/index.js";
import { ManifestFolder } from "./support/manifest-folder.js";
import { assertBuilt, runBinary, spawnServer } from "./support/spawned-server.js";
import { adminGet } from "./support/test-server.js";

beforeAll(() => assertBuilt());

let folder: ManifestFolder | undefined;
afterEach(async () => {
  await folder?.dispose();
  folder = undefined;
});

/** A manifests folder holding one Service, `web` in `ns`; disposed after each test. */
async function folderWithWebService(): Promise<ManifestFolder> {
  const created = await ManifestFolder.create();
  await created.write(
    "web.yaml",
    service("web", { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] }),
  );
  return created;
}

describe("the destination-server binary", () => {
  it("prints its version", async () => {
    const run = await runBinary(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it("prints usage for -h", async () => {
    const run = await runBinary(["-h"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("-stream-queue-capacity int");
  });

  it.each([
    [
      ["--stream-queue-capacity=0"],
      'invalid value "0" for flag -stream-queue-capacity: must be greater than 0',
    ],
    [
      ["--stream-queue-capacity", "-1"],
      'invalid value "-1" for flag -stream-queue-capacity: must be greater than 0',
    ],
    [["--nope"], "flag provided but not defined: -nope"],
    [["-enable-ipv6=perhaps"], 'invalid value "perhaps" for flag -enable-ipv6: parse error'],
    [["--meshed-http2-client-params", "{"], undefined],
    [["--log-level=loud"], undefined],
    [["controller", "-addr=:0"], 'unknown subcommand "controller": the only one is destination'],
    [["--addr"], "flag needs an argument: -addr"],
  ])("refuses %j with one line and a non-zero exit", async (args, message) => {
    const run = await runBinary(args);
    expect(run.code).toBe(2);
    const lines = run.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    if (message !== undefined) expect(lines[0]).toBe(`destination-server: ${message}`);
    else expect(lines[0]).toMatch(/^destination-server: invalid value/);
  });

  it("starts with upstream's chart args, saying nothing about them", async () => {
    folder = await folderWithWebService();
    // The destination container's args in upstream's chart render (after `destination`); the
    // addresses and log format after them are the test's, since the last value of a flag wins.
    const chartArgs = [
      "-addr=:8086",
      "-controller-namespace=linkerd",
      "-outbound-transport-mode=transport-header",
      "-enable-h2-upgrade=true",
      "-log-level=info",
      "-log-format=plain",
      "-enable-endpoint-slices=true",
      "-cluster-domain=cluster.local",
      "-identity-trust-domain=cluster.local",
      "-default-opaque-ports=25,587,3306,4444,5432,6379,9300,11211",
      "-enable-ipv6=false",
      "-enable-pprof=false",
      `--meshed-http2-client-params=${CHART_MESHED_HTTP2_CLIENT_PARAMS}`,
    ];
    const server = await spawnServer(
      [
        ...chartArgs,
        "-addr=127.0.0.1:0",
        "-metrics-addr=127.0.0.1:0",
        "-log-format=json",
        "--manifests",
        folder.dir,
      ],
      { subcommand: "destination" },
    );
    server.child.kill("SIGTERM");
    expect((await server.exit).code).toBe(0);
    const levels = server.records().map((r) => r.level);
    expect(levels.filter((l) => l !== "info" && l !== "debug")).toEqual([]);
  });

  it("collects its heap once after ready, with the flag it adds to node, and says what it freed", async () => {
    folder = await folderWithWebService();
    const settled = await spawnServer(["--manifests", folder.dir], {
      env: { DESTINATION_NODE_FLAGS: "--expose-gc" },
    });
    await eventually(() =>
      expect(settled.records().find((r) => r.msg === "heap settled after start")).toEqual(
        expect.objectContaining({
          level: "info",
          ms: expect.any(Number),
          heapUsedMiB: expect.any(Number),
          freedMiB: expect.any(Number),
          rssMiB: expect.any(Number),
          rssReturnedMiB: expect.any(Number),
        }),
      ),
    );
    expect(settled.records().find((r) => r.msg === "starting")?.nodeFlags).toContain("--expose-gc");
    settled.child.kill("SIGTERM");
    expect((await settled.exit).code).toBe(0);

    // Without `gc()` (an operator's DESTINATION_NODE_FLAGS without it) the server starts as well
    // and leaves the heap to V8.
    const unsettled = await spawnServer(["--manifests", folder.dir], {
      env: { DESTINATION_NODE_FLAGS: "" },
    });
    // An answer from the admin server comes after the turn in which the collection would run.
    expect((await adminGet(unsettled.adminPort, "/ready")).status).toBe(200);
    unsettled.child.kill("SIGTERM");
    expect((await unsettled.exit).code).toBe(0);
    expect(unsettled.records().filter((r) => r.msg === "heap settled after start")).toEqual([]);
  });

  it("warns once, naming it, for a flag it cannot honour", async () => {
    folder = await ManifestFolder.create();
    const server = await spawnServer(
      ["--manifests", folder.dir, "-trace-collector=collector:55678"],
      { subcommand: "destination" },
    );
    server.child.kill("SIGTERM");
    await server.exit;
    expect(server.records().filter((l) => l.msg.includes("trace-collector"))).toEqual([
      expect.objectContaining({
        level: "warn",
        msg: expect.stringMatching(/^-trace-collector=collector:55678 has no effect/),
      }),
    ]);
  });

  it("serves manifests without ever loading @kubernetes/client-node or the profiler", async () => {
    // A preload in the child records every module request: require() (CommonJS dependencies',
    // such as grpc-js) and the ES module loader's.
    const hooks = await mkdtemp(join(tmpdir(), "destination-module-log-"));
    try {
      const log = join(hooks, "modules.log");
      await writeFile(
        join(hooks, "hooks.mjs"),
        [
          'import { appendFileSync } from "node:fs";',
          "export async function resolve(specifier, context, next) {",
          "  const resolved = await next(specifier, context);",
          `  appendFileSync(${JSON.stringify(log)}, resolved.url + "\\n");`,
          "  return resolved;",
          "}",
        ].join("\n"),
      );
      await writeFile(
        join(hooks, "preload.cjs"),
        [
          'const { appendFileSync } = require("node:fs");',
          'const Module = require("node:module");',
          'Module.register("./hooks.mjs", require("node:url").pathToFileURL(__filename));',
          "const load = Module._load;",
          "Module._load = function (request, ...rest) {",
          `  appendFileSync(${JSON.stringify(log)}, request + "\\n");`,
          "  return load.call(this, request, ...rest);",
          "};",
        ].join("\n"),
      );
      folder = await folderWithWebService();
      const server = await spawnServer(["--manifests", folder.dir], {
        nodeArgs: ["--require", join(hooks, "preload.cjs")],
      });
      server.child.kill("SIGTERM");
      expect((await server.exit).code).toBe(0);
      const modules = (await readFile(log, "utf8")).split("\n");
      // Both ways in are seen: the entry through the loader, grpc-js' own require()s.
      expect(modules.some((m) => m.endsWith("/dist/main.js"))).toBe(true);
      expect(modules.some((m) => m === "http2" || m === "node:http2")).toBe(true);
      // client-node is bundled, tree-shaken: its package's own modules are never loaded. By the
      // package's folder, not any path with "client-node" in it (a checkout's own may).
      expect(modules.filter((m) => /@kubernetes[/+]client-node/.test(m))).toEqual([]);
      // Nor is the profiler, without -enable-pprof=true.
      expect(modules.filter((m) => /@datadog[/+]pprof/.test(m))).toEqual([]);
    } finally {
      await rm(hooks, { recursive: true, force: true });
    }
  });

  it("exits non-zero with one line when the manifests folder does not exist", async () => {
    const run = await runBinary([
      "--manifests",
      "/nonexistent/destination",
      "--addr",
      "127.0.0.1:0",
      "--metrics-addr",
      "127.0.0.1:0",
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/^destination-server: .*nonexistent/);
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "serves a folder, then on %s ends open streams with OK and exits 0",
    async (signal) => {
      folder = await ManifestFolder.create();
      await folder.write(
        "web.yaml",
        service("web", { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] }),
        pod("web-0", {
          ...CLUSTER_POD,
          namespace: "ns",
          ip: "10.3.0.1",
          meshed: false,
          labels: {},
          ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
        }),
        slice("web-1", "web", [podEndpoint("web-0", "10.3.0.1", { namespace: "ns" })], {
          namespace: "ns",
          ports: [{ port: 80, protocol: "TCP" }],
        }),
      );
      const server = await spawnServer(["--manifests", folder.dir]);
      expect(await adminGet(server.adminPort, "/ready")).toEqual({ status: 200, body: "ok\n" });
      const client = new DestinationClient(
        `127.0.0.1:${server.grpcPort}`,
        grpc.credentials.createInsecure(),
      );
      const stream = get(client, "web.ns.svc.cluster.local:80");
      expect(await stream.next()).toMatchObject({
        add: { addrs: [{ addr: { port: 80 } }], metricLabels: { service: "web" } },
      });
      server.child.kill(signal);
      expect(await stream.end).toEqual({ code: grpc.status.OK, details: "" });
      const exit = await server.exit;
      expect(exit.code).toBe(0);
      expect(server.logs()).toContain('"msg":"shutting down"');
      client.close();
    },
  );

  it.each(["exception", "rejection"] as const)(
    "on an invariant failure (an uncaught %s) ends open streams with a status, then exits non-zero",
    async (failure) => {
      folder = await ManifestFolder.create();
      await folder.write(
        "web.yaml",
        service("web", { namespace: "ns", ports: [{ port: 80, protocol: "TCP" }] }),
        pod("web-0", {
          ...CLUSTER_POD,
          namespace: "ns",
          ip: "10.3.0.1",
          meshed: false,
          labels: {},
          ports: [{ name: "h", containerPort: 80, protocol: "TCP" }],
        }),
        slice("web-1", "web", [podEndpoint("web-0", "10.3.0.1", { namespace: "ns" })], {
          namespace: "ns",
          ports: [{ port: 80, protocol: "TCP" }],
        }),
      );
      // The trigger is honoured only in a test environment (NODE_ENV=test).
      const server = await spawnServer(["--manifests", folder.dir], {
        env: { NODE_ENV: "test", DESTINATION_TEST_FAILURE: failure },
      });
      const client = new DestinationClient(
        `127.0.0.1:${server.grpcPort}`,
        grpc.credentials.createInsecure(),
      );
      const stream = get(client, "web.ns.svc.cluster.local:80");
      expect(await stream.next()).toMatchObject({ add: { addrs: [{ addr: { port: 80 } }] } });

      // Bad input is refused where it enters and never takes this path.
      expect(await get(client, "web.ns.svc.cluster.local:http").end).toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
      });
      const badToken = get(client, "web.ns.svc.cluster.local:80", "{not json");
      expect(await badToken.next()).toMatchObject({ add: {} });
      badToken.cancel();
      await folder.writeText("broken.yaml", "kind: [\n\u0000\u00ff");
      await folder.write(
        "typed.yaml",
        service("db", { namespace: "ns", ports: [{ port: "5432" as never, protocol: "TCP" }] }),
      );
      await eventually(() => expect(server.logs()).toContain("invalid Service ns/db"));
      expect(server.logs()).not.toContain("invariant failure");
      expect(stream.ended).toBeUndefined();

      let exited = false;
      void server.exit.then(() => {
        exited = true;
      });
      server.child.kill("SIGUSR2");
      expect(await stream.end).toEqual({ code: grpc.status.OK, details: "" });
      expect(exited).toBe(false);
      const exit = await server.exit;
      expect(exit.code).toBe(70);
      expect(server.logs()).toContain(
        `invariant failure (${failure === "exception" ? "uncaught exception" : "unhandled rejection"}); ending open streams and exiting`,
      );
      expect(server.logs()).toContain("deliberate invariant failure for a test");
      client.close();
    },
  );

  it("ignores the test failure trigger outside a test environment", async () => {
    folder = await folderWithWebService();
    const server = await spawnServer(["--manifests", folder.dir], {
      env: { NODE_ENV: "production", DESTINATION_TEST_FAILURE: "exception" },
    });
    // No handler is installed, so SIGUSR2 does what it does by default: end the process.
    server.child.kill("SIGUSR2");
    expect((await server.exit).signal).toBe("SIGUSR2");
    expect(server.logs()).not.toContain("invariant failure");
  });
});
