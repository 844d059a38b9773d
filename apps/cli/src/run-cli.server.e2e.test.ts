// dst against the real destination server (in-process) serving a temp folder of manifests:
// each command's output, the live redraw after a file change, and the error paths.
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DestinationProfileSchema,
  fromJson,
  type JsonValue,
  UpdateSchema,
} from "@destination/proto";
import {
  createServerLogger,
  type RunningDestinationServer,
  startDestinationServer,
} from "@destination/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapturedIo } from "../test/support/captured-io.js";
import { unusedLoopbackAddress } from "../test/support/fake-destination-server.js";
import {
  SHOP_EMPTY,
  SHOP_IDENTITY,
  SHOP_WEB,
  shopPods,
  shopProfileYaml,
  shopSliceYaml,
  shopWorkloadsYaml,
} from "../test/support/shop-manifests.js";
import { ExitCode } from "./exit-code.js";
import { messageJson } from "./render/message-output.js";
import { runCli } from "./run-cli.js";

let dir: string;
let server: RunningDestinationServer;
let addr: string;
const serverLog: string[] = [];

async function startServer(manifests: string): Promise<RunningDestinationServer> {
  return startDestinationServer({
    manifests,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({ level: "warn", sink: { write: (line) => serverLog.push(line) } }),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dst-cli-"));
  await writeFile(join(dir, "workloads.yaml"), shopWorkloadsYaml);
  await writeFile(join(dir, "slice.yaml"), shopSliceYaml(shopPods));
  await writeFile(join(dir, "profile.yaml"), shopProfileYaml);
  server = await startServer(dir);
  addr = `127.0.0.1:${server.grpcPort}`;
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (io: CapturedIo, ...argv: string[]) => runCli(["--addr", addr, ...argv], io);
const rowsOf = (table: string) =>
  table
    .trimEnd()
    .split("\n")
    .map((line) => line.trim().split(/ {2,}/));
/** Parses a proto JSON line and checks it is exactly what toJson writes for that message. */
function protoJsonLine<S extends typeof UpdateSchema | typeof DestinationProfileSchema>(
  schema: S,
  line: string,
): JsonValue {
  const value = JSON.parse(line) as JsonValue;
  // Proto JSON, plus the readable `address` beside each TcpAddress.
  const message = fromJson(schema, value, { ignoreUnknownFields: true });
  expect(messageJson(schema, message)).toEqual(value);
  return value;
}

describe("dst get against the server", () => {
  it("--once prints both pods with owner, identity, hint and zone", async () => {
    const io = new CapturedIo();
    expect(await run(io, "get", "--once", SHOP_WEB)).toBe(ExitCode.ok);
    expect(rowsOf(io.out)).toEqual([
      ["IP", "PORT", "POD", "OWNER", "IDENTITY", "PROTOCOL HINT", "ZONE"],
      [
        "10.244.0.11",
        "8080",
        "web-6d4cf56db6-aaaaa",
        "deployment/web",
        SHOP_IDENTITY,
        "h2",
        "zone-a",
      ],
      [
        "10.244.0.12",
        "8080",
        "web-6d4cf56db6-bbbbb",
        "deployment/web",
        SHOP_IDENTITY,
        "h2",
        "zone-b",
      ],
    ]);
    expect(io.err).toBe("");
  });

  it("--once -o json prints the first Update as one proto JSON line", async () => {
    const io = new CapturedIo();
    expect(await run(io, "get", "--once", "-o", "json", SHOP_WEB)).toBe(ExitCode.ok);
    const lines = io.out.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const update = protoJsonLine(UpdateSchema, lines[0] ?? "");
    expect(update).toMatchObject({
      add: {
        addrs: shopPods.map((pod) => ({
          addr: { address: `${pod.ip}:8080` },
          weight: 10000,
          metricLabels: { pod: pod.name, deployment: "web" },
        })),
        metricLabels: { namespace: "shop", service: "web" },
      },
    });
  });

  it("redraws after the slice file loses an endpoint, marking the removal", async () => {
    const io = new CapturedIo();
    const exit = run(io, "get", SHOP_WEB);
    await io.until((out) => out.includes("2 endpoints"));
    await writeFile(join(dir, "slice.yaml"), shopSliceYaml([shopPods[0]]));
    await io.until((out) => out.includes("1 endpoint "));
    io.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
    await writeFile(join(dir, "slice.yaml"), shopSliceYaml(shopPods));

    const frames = io.out.split("\n\n");
    expect(frames).toHaveLength(2);
    expect(rowsOf(frames[1] ?? "").map((cells) => cells.slice(0, 4))).toEqual([
      [SHOP_WEB, "1 endpoint", "-1"],
      ["IP", "PORT", "POD", "OWNER"],
      ["10.244.0.11", "8080", "web-6d4cf56db6-aaaaa", "deployment/web"],
      ["-", "10.244.0.12", "8080", "web-6d4cf56db6-bbbbb"],
    ]);
    expect(io.out).not.toContain("\x1b");
  });

  it("a silent service gives an empty table with --once after the timeout", async () => {
    const io = new CapturedIo();
    expect(await run(io, "get", "--once", "--timeout", "300ms", SHOP_EMPTY)).toBe(ExitCode.ok);
    expect(io.out).toBe("IP  PORT  POD  OWNER  IDENTITY  PROTOCOL HINT  ZONE\n(no endpoints)\n");
  });
});

describe("dst profile against the server", () => {
  it("renders the ServiceProfile", async () => {
    const io = new CapturedIo();
    expect(await run(io, "profile", "--once", SHOP_WEB)).toBe(ExitCode.ok);
    expect(io.out).toBe(
      [
        "fully qualified name  web.shop.svc.cluster.local",
        "opaque protocol       no",
        "retry budget          25% of requests, at least 5/s, ttl 15s",
        "parent                core/Service shop/web port 80",
        "profile               linkerd.io/ServiceProfile shop/web.shop.svc.cluster.local",
        "routes:",
        "  CONDITION         NAME             RETRYABLE  TIMEOUT  RESPONSE CLASSES",
        "  GET /books/[^/]*  GET /books/{id}  yes        250ms    status 500-599 → failure",
        "dst overrides:",
        "  AUTHORITY                             SHARE  WEIGHT",
        "  web.shop.svc.cluster.local:80         75%    7500",
        "  web-canary.shop.svc.cluster.local:80  25%    2500",
        "",
      ].join("\n"),
    );
  });

  it("-o json prints the DestinationProfile as proto JSON", async () => {
    const io = new CapturedIo();
    expect(await run(io, "profile", "--once", "-o", "json", SHOP_WEB)).toBe(ExitCode.ok);
    expect(protoJsonLine(DestinationProfileSchema, io.out.trimEnd())).toMatchObject({
      fullyQualifiedName: "web.shop.svc.cluster.local",
      routes: [{ metricsLabels: { route: "GET /books/{id}" }, isRetryable: true }],
    });
  });

  it("renders a pod ip:port as an endpoint profile", async () => {
    const io = new CapturedIo();
    expect(await run(io, "profile", "--once", "10.244.0.12:8080")).toBe(ExitCode.ok);
    expect(io.out).toContain("fully qualified name  -\n");
    expect(io.out).toContain(
      [
        "endpoint:",
        "  address        10.244.0.12:8080",
        "  pod            web-6d4cf56db6-bbbbb",
        "  owner          deployment/web",
        `  identity       ${SHOP_IDENTITY}`,
        "  protocol hint  h2",
      ].join("\n"),
    );
  });
});

describe("dst endpoints against the server", () => {
  it("tables several authorities, an empty service included", async () => {
    const io = new CapturedIo();
    expect(await run(io, "endpoints", "--timeout", "2s", SHOP_WEB, SHOP_EMPTY)).toBe(0);
    expect(rowsOf(io.out).map((cells) => cells.slice(0, 6))).toEqual([
      ["AUTHORITY", "NAMESPACE", "SERVICE", "IP", "PORT", "POD"],
      [SHOP_WEB, "shop", "web", "10.244.0.11", "8080", shopPods[0].name],
      [SHOP_WEB, "shop", "web", "10.244.0.12", "8080", shopPods[1].name],
      [`(no endpoints for ${SHOP_EMPTY})`],
    ]);
  });

  it("-o json writes {authority, update} per authority", async () => {
    const io = new CapturedIo();
    expect(await run(io, "endpoints", "--timeout", "2s", "-o", "json", SHOP_WEB, SHOP_EMPTY)).toBe(
      0,
    );
    const [web, empty] = io.out
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(web.authority).toBe(SHOP_WEB);
    protoJsonLine(UpdateSchema, JSON.stringify(web.update));
    expect(web.update.add.addrs.map((a: { addr: { address: string } }) => a.addr.address)).toEqual(
      shopPods.map((pod) => `${pod.ip}:8080`),
    );
    expect(empty).toEqual({ authority: SHOP_EMPTY });
  });
});

describe("errors from the server", () => {
  it("an unknown service on get exits 4 with the server's message", async () => {
    const io = new CapturedIo();
    expect(await run(io, "get", "nope.shop.svc.cluster.local:80")).toBe(ExitCode.notFound);
    expect(io.err).toBe("dst: Service nope.shop not found (NOT_FOUND)\n");
  });

  it("a bad authority exits 5 with the server's message", async () => {
    const get = new CapturedIo();
    expect(await run(get, "get", "web.shop:80")).toBe(ExitCode.invalidArgument);
    expect(get.err).toBe("dst: Invalid authority: web.shop:80 (INVALID_ARGUMENT)\n");
    const profile = new CapturedIo();
    expect(await run(profile, "profile", "web.shop.svc.cluster.local:0")).toBe(
      ExitCode.invalidArgument,
    );
    expect(profile.err).toMatch(
      /^dst: invalid authority: "web\.shop\.svc\.cluster\.local:0": .*\(INVALID_ARGUMENT\)\n$/,
    );
  });

  it("an unreachable address exits 3", async () => {
    const io = new CapturedIo();
    const nowhere = await unusedLoopbackAddress();
    expect(await runCli(["--addr", nowhere, "get", SHOP_WEB], io)).toBe(ExitCode.unreachable);
    expect(io.err).toContain(`cannot reach the destination server at ${nowhere}`);
  });

  it("Ctrl-C on a live profile exits 130", async () => {
    const io = new CapturedIo();
    const exit = run(io, "profile", SHOP_WEB);
    await io.until((out) => out.includes("update 1"));
    io.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
  });

  it("a server shutting down ends the stream with OK: a note and exit 0", async () => {
    const own = await startServer(dir);
    const io = new CapturedIo();
    const exit = runCli(["--addr", `127.0.0.1:${own.grpcPort}`, "get", SHOP_WEB], io);
    await io.until((out) => out.includes("2 endpoints"));
    await own.close();
    expect(await exit).toBe(ExitCode.ok);
    expect(io.err).toMatch(/^dst: the server ended the stream with status OK/);
  });
});

describe("dst diagnose against the server", () => {
  const diagnose = (io: CapturedIo, ...argv: string[]) =>
    runCli(["--admin-addr", `127.0.0.1:${server.adminPort}`, "diagnose", ...argv], io);

  it("shows the Service and both pods, served on the asked port", async () => {
    const io = new CapturedIo();
    expect(await diagnose(io, SHOP_WEB)).toBe(ExitCode.ok);
    expect(io.out).toContain("service      shop/web\n");
    expect(io.out).toContain("ports        80/TCP (http) → http\n");
    expect(io.out).toContain("EndpointSlice web-abcde  IPv4  ports http=8080  serves 80 → 8080\n");
    const rows = rowsOf(io.out.split("EndpointSlice web-abcde")[1]?.split("\n\n")[0] ?? "");
    expect(rows.slice(1)).toEqual([
      ["ADDRESS", "POD", "PHASE", "NODE", "OWNER", "ZONE", "HINTS", "SERVED ON 80"],
      ...shopPods.map((pod) => [
        pod.ip,
        pod.name,
        "Running",
        "node-a",
        "deployment/web",
        pod.zone,
        "-",
        "yes",
      ]),
    ]);
    expect(io.out).toContain("2 of 2 listed addresses served on port 80\n");
  });

  it("says why a not-ready endpoint and one whose pod is gone are not served", async () => {
    await writeFile(
      join(dir, "unready.yaml"),
      `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-zzzzz
  namespace: shop
  labels: { kubernetes.io/service-name: web }
addressType: IPv4
ports:
  - { name: http, port: 8080 }
endpoints:
  - addresses: [10.244.0.13]
    conditions: { ready: false }
    targetRef: { kind: Pod, namespace: shop, name: ${shopPods[0].name} }
  - addresses: [10.244.0.14]
    conditions: { ready: true }
    targetRef: { kind: Pod, namespace: shop, name: web-6d4cf56db6-gone0 }
`,
    );
    try {
      // The folder watch picks the file up shortly; ask until the server has it.
      let io = new CapturedIo();
      while (!io.out.includes("web-zzzzz")) {
        io = new CapturedIo();
        expect(await diagnose(io, SHOP_WEB)).toBe(ExitCode.ok);
      }
      expect(io.out).toMatch(/10\.244\.0\.13 +web-6d4cf56db6-aaaaa .* no: not ready\n/);
      expect(io.out).toMatch(/10\.244\.0\.14 +web-6d4cf56db6-gone0 .* no: pod missing\n/);
      expect(io.out).toContain("2 of 4 listed addresses served on port 80\n");
    } finally {
      await unlink(join(dir, "unready.yaml"));
    }
  });

  it("-o json prints the admin endpoint's JSON", async () => {
    const io = new CapturedIo();
    expect(await diagnose(io, "-o", "json", SHOP_WEB)).toBe(ExitCode.ok);
    const res = await fetch(
      `http://127.0.0.1:${server.adminPort}/debug/endpoints?service=shop/web`,
    );
    expect(JSON.parse(io.out)).toEqual(await res.json());
    expect(io.out.trimEnd()).not.toContain("\n");
  });

  it("exits 4 for an unknown Service and 3 when the admin address is unreachable", async () => {
    const unknown = new CapturedIo();
    expect(await diagnose(unknown, "nope.shop.svc.cluster.local:80")).toBe(ExitCode.notFound);
    expect(unknown.err).toBe("dst: Service shop/nope not found (no Service, no EndpointSlices)\n");
    const closed = await unusedLoopbackAddress();
    const unreachable = new CapturedIo();
    expect(await runCli(["diagnose", "--admin-addr", closed, SHOP_WEB], unreachable)).toBe(
      ExitCode.unreachable,
    );
    expect(unreachable.err).toMatch(
      new RegExp(`^dst: cannot reach the destination server's admin address ${closed}: `),
    );
  });
});
