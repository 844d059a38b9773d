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
      ["AUTHORITY", "STATUS", "MISSING", "EXTRA", "CHANGED", "PROFILE", "RECHECK", "DETAILS"],
      [SHOP_WEB, "ok", "0", "0", "0", "ok", "-", "-"],
      [SHOP_EMPTY, "ok", "0", "0", "0", "ok", "-", "-"],
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
    const code = await audit(io, "--settle", "200ms", "--manifests", reference, SHOP_WEB);
    expect(code).toBe(ExitCode.failure);
    // Asked again after the settle time, the server still lacks it: a divergence that persists.
    expect(io.err).toBe("dst: 1 of 1 diverge; rechecking in 200 ms (--settle)\n");
    expect(rowsOf(io.out)[1]).toEqual([
      SHOP_WEB,
      "divergent",
      "1",
      "0",
      "0",
      "ok",
      "persists",
      "missing 10.244.0.13:8080",
    ]);
  });

  it("names an endpoint the server holds and the source does not: extra, exit 1", async () => {
    const reference = await shopFolder({ slice: shopSliceYaml(shopPods.slice(0, 1)) });
    const io = new CapturedIo();
    expect(await audit(io, "-o", "json", "--settle", "0", "--manifests", reference, SHOP_WEB)).toBe(
      ExitCode.failure,
    );
    const lines = io.out.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      authority: SHOP_WEB,
      status: "divergent",
      recheck: "none",
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
    expect(
      await audit(
        io,
        "-o",
        "json",
        "--settle",
        "0",
        "--manifests",
        reference,
        SHOP_WEB,
        SHOP_EMPTY,
      ),
    ).toBe(ExitCode.failure);
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
    expect(await audit(io, "--settle", "0", "--manifests", reference, SHOP_WEB)).toBe(
      ExitCode.failure,
    );
    expect(rowsOf(io.out)[1]).toEqual([
      SHOP_WEB,
      "divergent",
      "0",
      "0",
      "0",
      "differs",
      "-",
      "profile (routes)",
    ]);
    const json = new CapturedIo();
    expect(
      await audit(json, "-o", "json", "--settle", "0", "--manifests", reference, SHOP_WEB),
    ).toBe(ExitCode.failure);
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

/** The real server on `dir`, with `options` on top of the tests' defaults. */
async function startServer(
  dir: string,
  options: Partial<Parameters<typeof startDestinationServer>[0]> = {},
): Promise<{ server: RunningDestinationServer; addr: string }> {
  const started = await startDestinationServer({
    manifests: dir,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({ level: "error", sink: { write: () => {} } }),
    ...options,
  });
  return { server: started, addr: `127.0.0.1:${started.grpcPort}` };
}

describe("dst audit -- SERVER-FLAGS: the reference answers with the audited server's flags", () => {
  // A server run as `destination -cluster-domain=example.org -identity-trust-domain=example.org
  // -enable-h2-upgrade=false`.
  let tuned: { server: RunningDestinationServer; addr: string };
  const WEB = "web.shop.svc.example.org:80";
  const TUNED_FLAGS = [
    "-cluster-domain=example.org",
    "-identity-trust-domain=example.org",
    "-enable-h2-upgrade=false",
  ];
  beforeAll(async () => {
    tuned = await startServer(served, {
      clusterDomain: "example.org",
      identityTrustDomain: "example.org",
      enableH2Upgrade: false,
    });
  });
  afterAll(async () => {
    await tuned?.server.close();
  });
  const auditTuned = (io: CapturedIo, ...argv: string[]) =>
    runCli(["audit", "--addr", tuned.addr, "--timeout", "1s", "--settle", "0", ...argv], io);

  it("with the server's flags after --, upstream's verbatim args included: agrees, exit 0", async () => {
    const io = new CapturedIo();
    const code = await auditTuned(
      io,
      "--all",
      "--manifests",
      served,
      "--",
      "destination",
      "-addr=:8086",
      "-controller-namespace=linkerd",
      ...TUNED_FLAGS,
      "-log-level=debug",
      "-trace-collector=collector.linkerd-jaeger:55678",
    );
    expect(io.err).toBe("");
    expect(code).toBe(ExitCode.ok);
    // --all names the authorities in the server's cluster domain.
    expect(rowsOf(io.out).map((row) => row.slice(0, 2))).toEqual([
      ["AUTHORITY", "STATUS"],
      ["empty.shop.svc.example.org:80", "ok"],
      [WEB, "ok"],
    ]);
  });

  it("without -enable-h2-upgrade=false and the trust domain: each endpoint changed, exit 1", async () => {
    const io = new CapturedIo();
    const code = await auditTuned(
      io,
      "--manifests",
      served,
      WEB,
      "--",
      "-cluster-domain=example.org",
    );
    expect(code).toBe(ExitCode.failure);
    expect(rowsOf(io.out)[1]).toEqual([
      WEB,
      "divergent",
      "0",
      "0",
      "2",
      "ok",
      "-",
      "changed 10.244.0.11:8080 (protocolHint, tlsIdentity); changed 10.244.0.12:8080 (protocolHint, tlsIdentity)",
    ]);
  });

  it("a flag the server refuses: exit 2 with the server parser's message", async () => {
    const io = new CapturedIo();
    const code = await auditTuned(
      io,
      "--manifests",
      served,
      WEB,
      "--",
      "-cluster-domian=example.org",
    );
    expect(code).toBe(ExitCode.usage);
    expect(io.err).toBe(
      "dst: server flags (after --): flag provided but not defined: -cluster-domian\n",
    );
    expect(io.out).toBe("");
    const config = new CapturedIo();
    expect(
      await auditTuned(config, "--manifests", served, WEB, "--", "-enable-endpoint-slices=false"),
    ).toBe(ExitCode.usage);
    expect(config.err).toBe(
      "dst: server flags (after --): -enable-ipv6=true requires -enable-endpoint-slices=true\n",
    );
  });
});

describe("dst audit --settle: a divergence is rechecked before it is reported", () => {
  it("the server catches up within the settle time: not reported, RECHECK gone, exit 0", async () => {
    // The server serves a folder that lacks one endpoint of the reference's, until the test
    // writes the missing one while dst waits to recheck. The settle time leaves a loaded
    // machine room to notice the file.
    const lagging = await shopFolder({ slice: shopSliceYaml(shopPods.slice(0, 1)) });
    const behind = await startServer(lagging);
    try {
      const io = new CapturedIo();
      const run = runCli(
        ["audit", "--addr", behind.addr, "--timeout", "1s", "--settle", "8s"].concat([
          "--manifests",
          served,
          SHOP_WEB,
          SHOP_EMPTY,
        ]),
        io,
      );
      await io.until((_, err) => err.includes("rechecking"));
      expect(io.err).toBe("dst: 1 of 2 diverge; rechecking in 8000 ms (--settle)\n");
      await writeFile(join(lagging, "slice.yaml"), shopSliceYaml(shopPods));
      expect(await run).toBe(ExitCode.ok);
      expect(rowsOf(io.out)).toEqual([
        ["AUTHORITY", "STATUS", "MISSING", "EXTRA", "CHANGED", "PROFILE", "RECHECK", "DETAILS"],
        [SHOP_WEB, "ok", "0", "0", "0", "ok", "gone", "first check: missing 10.244.0.12:8080"],
        [SHOP_EMPTY, "ok", "0", "0", "0", "ok", "-", "-"],
      ]);
    } finally {
      await behind.server.close();
    }
  });

  it("the JSON of a divergence gone on recheck keeps the first check under first", async () => {
    const lagging = await shopFolder({ slice: shopSliceYaml(shopPods.slice(0, 1)) });
    const behind = await startServer(lagging);
    try {
      const io = new CapturedIo();
      const run = runCli(
        ["audit", "--addr", behind.addr, "--timeout", "1s", "--settle", "8s", "-o", "json"].concat([
          "--manifests",
          served,
          SHOP_WEB,
        ]),
        io,
      );
      await io.until((_, err) => err.includes("rechecking"));
      await writeFile(join(lagging, "slice.yaml"), shopSliceYaml(shopPods));
      expect(await run).toBe(ExitCode.ok);
      expect(JSON.parse(io.out)).toMatchObject({
        authority: SHOP_WEB,
        status: "ok",
        recheck: "gone",
        counts: { missing: 0, extra: 0, changed: 0 },
        first: {
          status: "divergent",
          counts: { missing: 1, extra: 0, changed: 0 },
          missing: [{ address: "10.244.0.12:8080" }],
        },
      });
    } finally {
      await behind.server.close();
    }
  });
});
