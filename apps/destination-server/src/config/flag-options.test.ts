import { defaultFlagValues, FlagError, HelpRequested } from "@destination/go-compat";
import { Http2ClientParamsSchema, toJson } from "@destination/proto";
import { describe, expect, it } from "vitest";
import { createServerLogger } from "../logging/server-logger.js";
import {
  ConfigError,
  IGNORED_FLAGS,
  parseCommandLine,
  warnIgnoredFlags,
  withoutSubcommand,
} from "./flag-options.js";
import { SERVER_FLAGS } from "./server-flags.js";

async function optionsOf(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const logger = createServerLogger({ format: "json", sink: { write: (l) => lines.push(l) } });
  const { logger: _ignored, ...options } = await parseCommandLine(args, env).options(logger);
  return { options, logs: lines.map((l) => JSON.parse(l) as { level: string; msg: string }) };
}

function failure(args: string[]): string {
  try {
    parseCommandLine(args);
  } catch (err) {
    if (err instanceof FlagError || err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`expected ${args.join(" ")} to fail`);
}

describe("parseCommandLine", () => {
  it("has upstream's defaults", async () => {
    const { options, logs } = await optionsOf([]);
    expect(options).toEqual({
      addr: ":8086",
      metricsAddr: ":9996",
      enablePprof: false,
      controllerNamespace: "linkerd",
      hostname: null,
      exportQueueMetrics: true,
      identityTrustDomain: "cluster.local",
      clusterDomain: "cluster.local",
      forceOpaqueTransport: false,
      enableH2Upgrade: true,
      enableEndpointSlices: true,
      enableIpv6: true,
      defaultOpaquePorts: new Set(),
      streamQueueCapacity: 100,
      extEndpointZoneWeights: false,
      minPingIntervalMs: 10_000,
      keepalivePermitWithoutCalls: true,
      maxConcurrentStreams: 10_000,
      maxReceiveMessageLength: 4 * 1024 * 1024,
      maxConnectionIdleMs: 0,
      maxConnectionAgeMs: 0,
      maxConnectionAgeGraceMs: 0,
      maxSessionMemoryMb: 0,
      maxPendingRequests: 1_000,
      requestMessageTimeoutMs: 10_000,
      grpcServingThread: false,
      cacheSyncTimeoutMs: 60_000,
      auditIntervalMs: 300_000,
      shutdownTimeoutMs: 10_000,
      kubeApiSilenceTimeoutMs: 12_000,
    });
    // Empty trust and cluster domains fall back with a warning each.
    expect(logs.filter((l) => l.level === "warn")).toHaveLength(2);
    const line = parseCommandLine([]);
    expect([line.version, line.logLevel, line.logFormat]).toEqual([false, "info", "text"]);
  });

  it("accepts -name value, --name value, -name=value and --name=value", async () => {
    for (const args of [
      ["-addr", "127.0.0.1:0"],
      ["--addr", "127.0.0.1:0"],
      ["-addr=127.0.0.1:0"],
      ["--addr=127.0.0.1:0"],
    ]) {
      expect((await optionsOf(args)).options.addr).toBe("127.0.0.1:0");
    }
  });

  it("reads booleans bare or with =true|false", async () => {
    expect((await optionsOf(["--enable-h2-upgrade=false"])).options.enableH2Upgrade).toBe(false);
    expect((await optionsOf(["-ext-endpoint-zone-weights"])).options.extEndpointZoneWeights).toBe(
      true,
    );
    expect((await optionsOf(["--enable-ipv6=0"])).options.enableIpv6).toBe(false);
    expect(parseCommandLine(["--version"]).version).toBe(true);
  });

  it("takes the chart's values", async () => {
    const { options } = await optionsOf([
      "-outbound-transport-mode=transport-header",
      "-enable-ipv6=false",
      "-default-opaque-ports=25,587,3306,4444,5432,6379,9300,11211",
      "--meshed-http2-client-params",
      '{"keep_alive":{"interval":{"seconds":10},"timeout":{"seconds":3},"while_idle":true}}',
      "-cluster-domain=example.org",
      "-identity-trust-domain=root.example.org",
    ]);
    expect(options.forceOpaqueTransport).toBe(true);
    expect(options.enableIpv6).toBe(false);
    expect([...(options.defaultOpaquePorts ?? [])]).toEqual([
      25, 587, 3306, 4444, 5432, 6379, 9300, 11211,
    ]);
    expect(
      options.meshedHttp2ClientParams &&
        toJson(Http2ClientParamsSchema, options.meshedHttp2ClientParams),
    ).toEqual({ keepAlive: { interval: "10s", timeout: "3s", whileIdle: true } });
    expect([options.clusterDomain, options.identityTrustDomain]).toEqual([
      "example.org",
      "root.example.org",
    ]);
  });

  it("treats an empty meshed-http2-client-params as unset", async () => {
    expect((await optionsOf(["--meshed-http2-client-params", ""])).options).not.toHaveProperty(
      "meshedHttp2ClientParams",
    );
  });

  // Upstream does not refuse `-outbound-transport-mode=bogus` at startup either; it only forces
  // opaque transport for exactly `transport-header`.
  it("maps an unknown transport mode to transparent with an error log", async () => {
    const { options, logs } = await optionsOf(["-outbound-transport-mode=bogus"]);
    expect(options.forceOpaqueTransport).toBe(false);
    expect(logs.some((l) => l.level === "error" && l.msg.includes("bogus"))).toBe(true);
  });

  it("accepts plain, text and json log formats", async () => {
    expect(parseCommandLine(["-log-format=plain"]).logFormat).toBe("text");
    expect(parseCommandLine(["-log-format", "text"]).logFormat).toBe("text");
    expect(parseCommandLine(["--log-format=json", "--log-level=debug"])).toMatchObject({
      logFormat: "json",
      logLevel: "debug",
    });
  });

  // Upstream (linkerd-controller destination) starts with plain logs for `xml`, `JSON` or ``.
  it("logs plain text for an unknown format, with a warning", async () => {
    for (const format of ["xml", "JSON", ""]) {
      expect(parseCommandLine([`-log-format=${format}`]).logFormat).toBe("text");
      const { logs } = await optionsOf([`-log-format=${format}`, "-cluster-domain=x"]);
      expect(logs.filter((l) => l.msg.includes("-log-format"))).toEqual([
        expect.objectContaining({ level: "warn" }),
      ]);
    }
  });

  // Upstream takes `WARNING`, `Debug` and `PANIC` and is fatal on `bogus`, ` info` and ``.
  it("reads -log-level as logrus does", () => {
    expect(parseCommandLine(["-log-level=WARNING"]).logLevel).toBe("warn");
    expect(parseCommandLine(["-log-level=Debug"]).logLevel).toBe("debug");
    expect(parseCommandLine(["-log-level=PANIC"]).logLevel).toBe("panic");
    for (const level of ["bogus", " info", ""]) {
      expect(failure([`-log-level=${level}`])).toBe(
        `invalid value "${level}" for flag -log-level: unknown level`,
      );
    }
  });

  it("takes upstream's leading destination subcommand", async () => {
    const { options } = await optionsOf(["destination", "-addr=:9000", "-enable-ipv6=false"]);
    expect([options.addr, options.enableIpv6]).toEqual([":9000", false]);
    expect(() => parseCommandLine(["destination", "-h"])).toThrow(HelpRequested);
    expect(failure(["identity", "-addr=:9000"])).toBe(
      'unknown subcommand "identity": the only one is destination',
    );
    // Only the first word may be the subcommand.
    expect(failure(["-addr=:9000", "destination"])).toBe("unexpected argument: destination");
    expect(failure(["destination", "destination"])).toMatch(/destination/);
  });

  it("takes the ExternalWorkload controller's Lease identity from HOSTNAME, as upstream", async () => {
    expect(
      (await optionsOf([], { HOSTNAME: "linkerd-destination-7d9f-x2" })).options,
    ).toMatchObject({
      hostname: "linkerd-destination-7d9f-x2",
      exportQueueMetrics: true,
    });
    expect((await optionsOf(["-export-queue-metrics=false"])).options).toMatchObject({
      hostname: null,
      exportQueueMetrics: false,
    });
  });

  it("runs no ExternalWorkload controller with -external-workload-controller=false", async () => {
    const { options } = await optionsOf(["-external-workload-controller=false"], {
      HOSTNAME: "destination-server-0",
    });
    expect("hostname" in options).toBe(false);
  });

  it("warns once for each ignored flag set away from its default, naming it", async () => {
    const quiet = await optionsOf([
      "-enable-pprof=false",
      "-export-queue-metrics=true",
      "-trace-collector=",
      "-cluster-domain=x",
      "-identity-trust-domain=x",
    ]);
    expect(quiet.logs).toEqual([]);
    const { logs } = await optionsOf([
      "-enable-pprof=true",
      "-trace-collector=collector:55678",
      "-kube-apiclient-qps=5",
      "-kube-apiclient-burst=10",
      "-cluster-domain=x",
      "-identity-trust-domain=x",
    ]);
    expect(logs.map((l) => [l.level, l.msg.split(" ")[0]])).toEqual([
      ["warn", "-trace-collector=collector:55678"],
      ["warn", "-kube-apiclient-qps=5"],
      ["warn", "-kube-apiclient-burst=10"],
    ]);
  });

  it("serves pprof only when -enable-pprof=true, as upstream", async () => {
    expect((await optionsOf([])).options.enablePprof).toBe(false);
    const { options, logs } = await optionsOf([
      "-enable-pprof=true",
      "-cluster-domain=x",
      "-identity-trust-domain=x",
    ]);
    expect(options.enablePprof).toBe(true);
    expect(logs).toEqual([]);
  });

  it("reads the gRPC limits", async () => {
    const { options } = await optionsOf([
      "--grpc-max-concurrent-streams=0",
      "--grpc-max-recv-msg-size=1024",
      "--grpc-max-connection-idle=5m",
      "--grpc-max-connection-age=1h",
      "--grpc-max-connection-age-grace=30s",
      "--grpc-max-session-memory=64",
    ]);
    expect(options).toMatchObject({
      maxConcurrentStreams: 0,
      maxReceiveMessageLength: 1024,
      maxConnectionIdleMs: 300_000,
      maxConnectionAgeMs: 3_600_000,
      maxConnectionAgeGraceMs: 30_000,
      maxSessionMemoryMb: 64,
    });
    expect(() => parseCommandLine(["--grpc-max-recv-msg-size=0"])).toThrow(
      'invalid value "0" for flag -grpc-max-recv-msg-size: must be greater than 0',
    );
    expect(() => parseCommandLine(["--grpc-max-connection-age=soon"])).toThrow(
      'invalid value "soon" for flag -grpc-max-connection-age: invalid duration',
    );
  });

  it("reads the added flags", async () => {
    const { options } = await optionsOf([
      "--manifests",
      "examples",
      "--grpc-min-ping-interval=5s",
      "--cache-sync-timeout=2m",
      "--shutdown-timeout=500ms",
      "--stream-queue-capacity=7",
      "-audit-interval=0",
      "--kube-api-silence-timeout=4s",
    ]);
    expect(options).toMatchObject({
      auditIntervalMs: 0,
      kubeApiSilenceTimeoutMs: 4000,
      manifests: "examples",
      minPingIntervalMs: 5000,
      cacheSyncTimeoutMs: 120_000,
      shutdownTimeoutMs: 500,
      streamQueueCapacity: 7,
    });
  });

  it("fails with one line on invalid values", async () => {
    expect(failure(["-audit-interval=-1m"])).toBe(
      'invalid value "-1m" for flag -audit-interval: invalid duration',
    );
    expect(failure(["--kube-api-silence-timeout=0s"])).toBe(
      'invalid value "0s" for flag -kube-api-silence-timeout: must be positive',
    );
    expect(failure(["--stream-queue-capacity=0"])).toBe(
      'invalid value "0" for flag -stream-queue-capacity: must be greater than 0',
    );
    expect(failure(["--stream-queue-capacity", "-5"])).toMatch(/must be greater than 0/);
    expect(failure(["--stream-queue-capacity=x"])).toBe(
      'invalid value "x" for flag -stream-queue-capacity: parse error',
    );
    expect(failure(["--enable-ipv6=maybe"])).toBe(
      'invalid value "maybe" for flag -enable-ipv6: parse error',
    );
    expect(failure(["--meshed-http2-client-params={"])).toMatch(
      /^invalid value for flag -meshed-http2-client-params: invalid JSON/,
    );
    expect(failure(["--log-level=loud"])).toMatch(/-log-level/);
    expect(failure(["--addr=nope"])).toMatch(/^invalid value "nope" for flag -addr/);
    expect(failure(["--metrics-addr=:70000"])).toMatch(/-metrics-addr/);
    expect(failure(["--grpc-min-ping-interval=10"])).toMatch(/-grpc-min-ping-interval/);
    expect(failure(["--enable-endpoint-slices=false"])).toBe(
      "-enable-ipv6=true requires -enable-endpoint-slices=true",
    );
    expect(failure(["--manifests=x", "--kubeconfig=y"])).toMatch(/cannot be combined/);
    for (const message of [
      failure(["--stream-queue-capacity=0"]),
      failure(["--meshed-http2-client-params={"]),
    ]) {
      expect(message).not.toContain("\n");
    }
  });

  it("rejects unknown flags, missing values and stray arguments as Go does", async () => {
    expect(failure(["--nope"])).toBe("flag provided but not defined: -nope");
    expect(failure(["--addr"])).toBe("flag needs an argument: -addr");
    expect(failure(["---addr=x"])).toBe("bad flag syntax: ---addr=x");
    expect(failure(["-enable-ipv6", "false"])).toBe("unexpected argument: false");
  });

  it("reports a help request", async () => {
    expect(() => parseCommandLine(["-h"])).toThrow(HelpRequested);
    expect(() => parseCommandLine(["--help"])).toThrow(HelpRequested);
  });
});

describe("withoutSubcommand", () => {
  it("drops a leading destination and keeps flags-only command lines", () => {
    expect(withoutSubcommand(["destination", "-addr=:8086"])).toEqual(["-addr=:8086"]);
    expect(withoutSubcommand(["destination"])).toEqual([]);
    expect(withoutSubcommand(["-addr=:8086", "destination"])).toEqual([
      "-addr=:8086",
      "destination",
    ]);
    expect(withoutSubcommand([])).toEqual([]);
  });

  it("refuses another leading word, naming it", () => {
    expect(() => withoutSubcommand(["identity"])).toThrow(ConfigError);
    expect(() => withoutSubcommand(["Destination", "-addr=:1"])).toThrow(
      'unknown subcommand "Destination": the only one is destination',
    );
  });
});

describe("warnIgnoredFlags", () => {
  const defaults = defaultFlagValues(SERVER_FLAGS);

  it("names only flags of the table", () => {
    const names = new Set(SERVER_FLAGS.map((f) => f.name));
    for (const { name } of IGNORED_FLAGS) expect(names.has(name)).toBe(true);
  });

  it("is silent at the defaults and warns once per changed flag", () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    warnIgnoredFlags(defaults, defaults, logger);
    expect(warnings).toEqual([]);
    warnIgnoredFlags({ ...defaults, "trace-collector": "collector:55678" }, defaults, logger);
    expect(warnings).toEqual([
      "-trace-collector=collector:55678 has no effect: traces are not sent",
    ]);
  });
});
