import { describe, expect, it } from "vitest";
import { ExitCode } from "../exit-code.js";
import {
  buildContextToken,
  type CliCommand,
  DEFAULT_ADDR,
  DEFAULT_ADMIN_ADDR,
  DEFAULT_SETTLE_MS,
  DEFAULT_TIMEOUT_MS,
  parseCommandLine,
  UsageError,
} from "./parse-command-line.js";
import { commandUsage, rootUsage } from "./usage.js";

const AUTHORITY = "web-svc.emojivoto.svc.cluster.local:80";

function usageError(argv: string[]): UsageError {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(argv)}`);
}

describe("parseCommandLine", () => {
  it("applies the defaults", () => {
    expect(parseCommandLine(["get", AUTHORITY])).toEqual({
      kind: "get",
      authority: AUTHORITY,
      once: false,
      options: {
        addr: DEFAULT_ADDR,
        contextToken: "",
        output: "table",
        timeoutMs: DEFAULT_TIMEOUT_MS,
      },
    } satisfies CliCommand);
    expect(DEFAULT_ADDR).toBe("localhost:8086");
    expect(DEFAULT_TIMEOUT_MS).toBe(5000);
  });

  it("reads every flag, before or after the command", () => {
    const command = parseCommandLine([
      "--addr",
      "10.0.0.1:8086",
      "profile",
      "--once",
      "-o",
      "json",
      "--timeout=500ms",
      AUTHORITY,
      "--context-token",
      '{"ns":"a"}',
    ]);
    expect(command).toEqual({
      kind: "profile",
      authority: AUTHORITY,
      once: true,
      options: {
        addr: "10.0.0.1:8086",
        contextToken: '{"ns":"a"}',
        output: "json",
        timeoutMs: 500,
      },
    });
  });

  it("builds the context token from --ns, --node and --pod", () => {
    const command = parseCommandLine([
      "get",
      AUTHORITY,
      "--ns",
      "emojivoto",
      "--node",
      "node-a",
      "--pod",
      "web-1",
      "--output",
      "yaml",
    ]);
    expect(command.kind === "get" && command.options).toMatchObject({
      contextToken: '{"ns":"emojivoto","nodeName":"node-a","pod":"web-1"}',
      output: "yaml",
    });
  });

  it("takes several authorities for endpoints and accepts a redundant --once", () => {
    expect(
      parseCommandLine([
        "endpoints",
        "a.b.svc.cluster.local",
        "c.d.svc.cluster.local:8080",
        "--once",
      ]),
    ).toMatchObject({
      kind: "endpoints",
      authorities: ["a.b.svc.cluster.local", "c.d.svc.cluster.local:8080"],
    });
  });

  it("answers --help and help for the root and for each command", () => {
    expect(parseCommandLine(["--help"])).toEqual({ kind: "help", text: rootUsage });
    expect(parseCommandLine(["help"])).toEqual({ kind: "help", text: rootUsage });
    for (const name of ["get", "profile", "endpoints"] as const) {
      expect(parseCommandLine([name, "--help"])).toEqual({
        kind: "help",
        text: commandUsage[name],
      });
      expect(parseCommandLine(["help", name])).toEqual({ kind: "help", text: commandUsage[name] });
      expect(parseCommandLine(["-h", name])).toEqual({ kind: "help", text: commandUsage[name] });
    }
  });

  it("answers --version and -V", () => {
    expect(parseCommandLine(["--version"])).toEqual({ kind: "version" });
    expect(parseCommandLine(["get", "-V"])).toEqual({ kind: "version" });
  });

  it("every help text shows examples and the exit codes", () => {
    for (const text of [rootUsage, ...Object.values(commandUsage)]) {
      expect(text).toContain("Examples:");
      expect(text).toMatch(/3 +server unreachable/);
      expect(text).toMatch(/130 +interrupted/);
    }
  });

  it.each([
    [[], "a command is required", rootUsage],
    [["watch", AUTHORITY], 'unknown command "watch"', rootUsage],
    [["help", "watch"], 'no help for "watch"', rootUsage],
    [["get"], "get needs exactly one AUTHORITY, got 0", commandUsage.get],
    [["get", "a", "b"], "get needs exactly one AUTHORITY, got 2", commandUsage.get],
    [["profile"], "profile needs exactly one AUTHORITY, got 0", commandUsage.profile],
    [["endpoints"], "endpoints needs at least one AUTHORITY", commandUsage.endpoints],
    [["get", AUTHORITY, "--bogus"], "unknown flag --bogus", commandUsage.get],
    [["get", AUTHORITY, "--addr"], "flag --addr needs a value", commandUsage.get],
    [["get", AUTHORITY, "--addr", ""], "--addr must not be empty", commandUsage.get],
    [
      ["get", AUTHORITY, "-o", "xml"],
      '--output must be table, json or yaml, not "xml"',
      commandUsage.get,
    ],
    [
      ["get", AUTHORITY, "--timeout", "5"],
      "--timeout must be a positive duration such as 5s or 500ms, not 5",
      commandUsage.get,
    ],
    [
      ["profile", AUTHORITY, "--context-token", "{}", "--ns", "a"],
      "--context-token cannot be combined with --ns, --node or --pod",
      commandUsage.profile,
    ],
  ])("rejects %j: %s", (argv, message, usage) => {
    const error = usageError(argv);
    expect(error.message).toBe(message);
    expect(error.usage).toBe(usage);
    expect(error.exitCode).toBe(ExitCode.usage);
  });
});

describe("parseCommandLine: diagnose", () => {
  it("resolves the authority to a Service and reads the admin address", () => {
    expect(parseCommandLine(["diagnose", AUTHORITY])).toEqual({
      kind: "diagnose",
      service: { namespace: "emojivoto", name: "web-svc", port: 80 },
      adminAddr: DEFAULT_ADMIN_ADDR,
      output: "table",
      timeoutMs: DEFAULT_TIMEOUT_MS,
    } satisfies CliCommand);
    expect(DEFAULT_ADMIN_ADDR).toBe("127.0.0.1:9996");
    expect(
      parseCommandLine([
        "--admin-addr",
        "[::1]:19996",
        "diagnose",
        "-o",
        "json",
        "--timeout",
        "1s",
        "emoji-svc.emojivoto.svc.cluster.local:8080",
      ]),
    ).toEqual({
      kind: "diagnose",
      service: { namespace: "emojivoto", name: "emoji-svc", port: 8080 },
      adminAddr: "[::1]:19996",
      output: "json",
      timeoutMs: 1000,
    });
  });

  it.each([
    [["diagnose"], "diagnose needs exactly one AUTHORITY, got 0"],
    [["diagnose", AUTHORITY, AUTHORITY], "diagnose needs exactly one AUTHORITY, got 2"],
    [
      ["diagnose", "web-svc.emojivoto:80"],
      '"web-svc.emojivoto:80" is not <service>.<namespace>.svc.<cluster domain>[:port]',
    ],
    [
      ["diagnose", "--admin-addr", "localhost", AUTHORITY],
      '--admin-addr must be HOST:PORT, such as 127.0.0.1:9996, not "localhost"',
    ],
    [
      ["diagnose", "--ns", "emojivoto", AUTHORITY],
      "diagnose reads the server's caches, not Get: --context-token, --ns, --node and --pod do not apply",
    ],
  ])("refuses %j with diagnose's help", (argv, message) => {
    const error = usageError(argv);
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(ExitCode.usage);
    expect(error.usage).toBe(commandUsage.diagnose);
  });
});

describe("parseCommandLine: audit", () => {
  it("reads the authorities or --all, and the source", () => {
    expect(
      parseCommandLine(["audit", "--manifests", "dir", AUTHORITY, "--ns", "emojivoto"]),
    ).toEqual({
      kind: "audit",
      authorities: [AUTHORITY],
      all: false,
      source: { manifests: "dir", kubeconfig: undefined, kubeContext: undefined },
      serverArgs: [],
      settleMs: DEFAULT_SETTLE_MS,
      options: {
        addr: DEFAULT_ADDR,
        contextToken: '{"ns":"emojivoto"}',
        output: "table",
        timeoutMs: DEFAULT_TIMEOUT_MS,
      },
    } satisfies CliCommand);
    expect(parseCommandLine(["audit", "--all", "--context", "prod", "-o", "json"])).toMatchObject({
      kind: "audit",
      authorities: [],
      all: true,
      source: { kubeContext: "prod" },
    });
  });

  it("takes everything after -- as the server's command line, verbatim", () => {
    const serverArgs = ["destination", "-cluster-domain=example.org", "--addr", ":8086", "--"];
    expect(
      parseCommandLine(["audit", "--all", "--settle", "0", "--", ...serverArgs]),
    ).toMatchObject({ kind: "audit", all: true, authorities: [], serverArgs, settleMs: 0 });
    expect(parseCommandLine(["audit", AUTHORITY, "--settle", "1m30s"])).toMatchObject({
      serverArgs: [],
      settleMs: 90_000,
    });
  });

  it("--server-args-from NAMESPACE/DEPLOYMENT names where the server's flags are read", () => {
    expect(
      parseCommandLine(["audit", "--all", "--server-args-from", "linkerd/linkerd-destination"]),
    ).toMatchObject({ serverArgsFrom: { namespace: "linkerd", name: "linkerd-destination" } });
  });

  it("leaves -- alone for the other commands", () => {
    expect(parseCommandLine(["get", "--", AUTHORITY])).toMatchObject({ authority: AUTHORITY });
  });

  it.each([
    [["audit", "--settle", "2", AUTHORITY], /--settle must be a duration/],
    [["get", "--settle", "2s", AUTHORITY], /--settle applies only to audit/],
    [["audit", "--server-args-from", "linkerd", AUTHORITY], /NAMESPACE\/DEPLOYMENT/],
    [["audit", "--server-args-from", "a/b/c", AUTHORITY], /NAMESPACE\/DEPLOYMENT/],
    [
      ["audit", "--manifests", "d", "--server-args-from", "linkerd/d", AUTHORITY],
      /not with --manifests/,
    ],
    [["audit", "--server-args-from", "linkerd/d", AUTHORITY, "--", "-x"], /cannot be combined/],
    [["audit", "--manifests", "dir"], /AUTHORITY... or --all/],
    [["audit", "--all", "--manifests", "dir", AUTHORITY], /AUTHORITY... or --all/],
    [["audit", "--manifests", "dir", "--kubeconfig", "k", AUTHORITY], /cannot be combined/],
    [["audit", "--manifests", "dir", "-o", "yaml", AUTHORITY], /not yaml/],
    [["get", "--manifests", "dir", AUTHORITY], /--manifests applies only to audit/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

describe("buildContextToken", () => {
  it("is empty without parts, so the server sees no token", () => {
    expect(buildContextToken({})).toBe("");
  });

  it("writes all three keys in the injector's order", () => {
    expect(buildContextToken({ pod: "web-1", nodeName: "node-a", ns: "emojivoto" })).toBe(
      '{"ns":"emojivoto","nodeName":"node-a","pod":"web-1"}',
    );
  });

  it("writes only the given keys and escapes values as JSON", () => {
    expect(buildContextToken({ nodeName: 'n"1' })).toBe('{"nodeName":"n\\"1"}');
    expect(buildContextToken({ ns: "" })).toBe('{"ns":""}');
  });
});
