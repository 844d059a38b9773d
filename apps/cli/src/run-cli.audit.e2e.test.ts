// dst audit against the real destination server (in-process, serving a temp folder of
// manifests): the reference is built from the same folder (agreement) or from a different one
// (an endpoint more, one less, another identity). Real gRPC over loopback sockets.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  SHOP_WEB,
  shopPods,
  shopProfileYaml,
  shopSliceYaml,
  shopWorkloadsYaml,
} from "../test/support/shop-manifests.js";
import { ExitCode } from "./exit-code.js";
import { runCli } from "./run-cli.js";

const dirs: string[] = [];
let served: string;
let server: RunningDestinationServer;
let addr: string;

/** A folder with the shop's manifests, `edit` applied to each file's text. */
async function shopFolder(
  edit: { workloads?: string; slice?: string; profile?: string } = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "dst-audit-"));
  dirs.push(dir);
  await writeFile(join(dir, "workloads.yaml"), edit.workloads ?? shopWorkloadsYaml);
  await writeFile(join(dir, "slice.yaml"), edit.slice ?? shopSliceYaml(shopPods));
  await writeFile(join(dir, "profile.yaml"), edit.profile ?? shopProfileYaml);
  return dir;
}

beforeAll(async () => {
  served = await shopFolder();
  server = await startDestinationServer({
    manifests: served,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({ level: "error", sink: { write: () => {} } }),
  });
  addr = `127.0.0.1:${server.grpcPort}`;
});

afterAll(async () => {
  await server?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const audit = (io: CapturedIo, ...argv: string[]) =>
  runCli(["audit", "--addr", addr, "--timeout", "1s", ...argv], io);
const rowsOf = (table: string) =>
  table
    .trimEnd()
    .split("\n")
    .map((line) => line.trim().split(/ {2,}/));

describe("dst audit against the server", () => {
  it("agrees with the folder the server serves: exit 0", async () => {
    const io = new CapturedIo();
    expect(await audit(io, "--manifests", served, SHOP_WEB, SHOP_EMPTY)).toBe(ExitCode.ok);
    expect(rowsOf(io.out)).toEqual([
      ["AUTHORITY", "STATUS", "MISSING", "EXTRA", "CHANGED", "PROFILE", "DETAILS"],
      [SHOP_WEB, "ok", "0", "0", "0", "ok", "-"],
      [SHOP_EMPTY, "ok", "0", "0", "0", "ok", "-"],
    ]);
    expect(io.err).toBe("");
  });

  it("--all audits every Service port of the source, with the caller's context token", async () => {
    const io = new CapturedIo();
    const code = await audit(
      io,
      "--all",
      "--manifests",
      served,
      "--ns",
      "shop",
      "--node",
      "node-a",
    );
    expect(code).toBe(ExitCode.ok);
    expect(rowsOf(io.out).map((row) => row.slice(0, 2))).toEqual([
      ["AUTHORITY", "STATUS"],
      [SHOP_EMPTY, "ok"],
      [SHOP_WEB, "ok"],
    ]);
  });

  it("names an endpoint the source implies and the server lacks: missing, exit 1", async () => {
    const slice = `${shopSliceYaml(shopPods)}  - addresses: [10.244.0.13]\n    conditions: { ready: true }\n`;
    const reference = await shopFolder({ slice });
    const io = new CapturedIo();
    expect(await audit(io, "--manifests", reference, SHOP_WEB)).toBe(ExitCode.failure);
    expect(rowsOf(io.out)[1]).toEqual([
      SHOP_WEB,
      "divergent",
      "1",
      "0",
      "0",
      "ok",
      "missing 10.244.0.13:8080",
    ]);
  });

  it("names an endpoint the server holds and the source does not: extra, exit 1", async () => {
    const reference = await shopFolder({ slice: shopSliceYaml(shopPods.slice(0, 1)) });
    const io = new CapturedIo();
    expect(await audit(io, "-o", "json", "--manifests", reference, SHOP_WEB)).toBe(
      ExitCode.failure,
    );
    const lines = io.out.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      authority: SHOP_WEB,
      status: "divergent",
      counts: { missing: 0, extra: 1, changed: 0 },
      extra: [{ address: "10.244.0.12:8080", actual: { weight: 10000 } }],
    });
  });

  it("names a changed identity with the fields that differ, in JSON with both sides", async () => {
    const workloads = shopWorkloadsYaml.replaceAll(
      "serviceAccountName: web",
      "serviceAccountName: books",
    );
    const reference = await shopFolder({ workloads });
    const io = new CapturedIo();
    expect(await audit(io, "-o", "json", "--manifests", reference, SHOP_WEB, SHOP_EMPTY)).toBe(
      ExitCode.failure,
    );
    const [web, empty] = io.out
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(empty).toMatchObject({ authority: SHOP_EMPTY, status: "ok" });
    expect(web.counts).toEqual({ missing: 0, extra: 0, changed: 2 });
    expect(web.changed[0]).toMatchObject({
      address: "10.244.0.11:8080",
      fields: ["metricLabels", "tlsIdentity"],
      expected: {
        tlsIdentity: {
          dnsLikeIdentity: { name: "books.shop.serviceaccount.identity.linkerd.cluster.local" },
        },
      },
      actual: {
        tlsIdentity: {
          dnsLikeIdentity: { name: "web.shop.serviceaccount.identity.linkerd.cluster.local" },
        },
      },
    });
  });

  it("names the profile fields that differ (GetProfile), endpoints agreeing", async () => {
    const profile = shopProfileYaml.replace("timeout: 250ms", "timeout: 500ms");
    const reference = await shopFolder({ profile });
    const io = new CapturedIo();
    expect(await audit(io, "--manifests", reference, SHOP_WEB)).toBe(ExitCode.failure);
    expect(rowsOf(io.out)[1]).toEqual([
      SHOP_WEB,
      "divergent",
      "0",
      "0",
      "0",
      "differs",
      "profile (routes)",
    ]);
    const json = new CapturedIo();
    expect(await audit(json, "-o", "json", "--manifests", reference, SHOP_WEB)).toBe(
      ExitCode.failure,
    );
    expect(JSON.parse(json.out)).toMatchObject({
      profile: {
        status: "differs",
        fields: ["routes"],
        expected: { routes: [{ timeout: "0.500s" }] },
        actual: { routes: [{ timeout: "0.250s" }] },
      },
    });
  });

  it("an error agrees with the same error: an unknown Service on both sides", async () => {
    const io = new CapturedIo();
    const unknown = "nope.shop.svc.cluster.local:80";
    expect(await audit(io, "--manifests", served, unknown)).toBe(ExitCode.ok);
    expect(rowsOf(io.out)[1]?.slice(0, 2)).toEqual([unknown, "ok"]);
  });

  it("exits 3 when the server is unreachable", async () => {
    const io = new CapturedIo();
    const code = await runCli(
      [
        "audit",
        "--addr",
        await unusedLoopbackAddress(),
        "--timeout",
        "1s",
        "--manifests",
        served,
        SHOP_WEB,
      ],
      io,
    );
    expect(code).toBe(ExitCode.unreachable);
    expect(io.err).toMatch(/cannot reach the destination server/);
  });
});
