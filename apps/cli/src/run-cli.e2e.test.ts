// The whole CLI against a scripted gRPC server: output per command and format, live redraws,
// and every way a run ends.

import {
  create,
  DestinationProfileSchema,
  type GetDestination,
  toJson,
  UpdateSchema,
} from "@destination/proto";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CapturedIo } from "../test/support/captured-io.js";
import {
  type FakeDestinationServer,
  startFakeDestinationServer,
  unusedLoopbackAddress,
} from "../test/support/fake-destination-server.js";
import {
  addUpdate,
  booksProfile,
  meshedPod,
  opaquePod,
  removeUpdate,
} from "../test/support/sample-messages.js";
import { commandUsage, rootUsage } from "./args/usage.js";
import { ExitCode } from "./exit-code.js";
import { messageJson } from "./render/message-output.js";
import { cliVersion, runCli } from "./run-cli.js";

const WEB = "web-svc.emojivoto.svc.cluster.local:80";
const DB = "db.emojivoto.svc.cluster.local:3306";

let server: FakeDestinationServer;
let requests: GetDestination[];

beforeAll(async () => {
  server = await startFakeDestinationServer();
});
afterAll(() => server.close());
beforeEach(() => {
  requests = [];
  server.onGet = (call) => void requests.push(call.request);
  server.onGetProfile = (call) => void requests.push(call.request);
});

const fail =
  (code: grpc.status, details: string) => (call: grpc.ServerWritableStream<unknown, unknown>) =>
    call.emit("error", { code, details });

const run = (io: CapturedIo, ...argv: string[]) => runCli(["--addr", server.addr, ...argv], io);

describe("dst get", () => {
  it("redraws the table on every change, marking additions and removals (non-TTY: appended)", async () => {
    let push: (update: ReturnType<typeof addUpdate>) => void = () => {};
    server.onGet = (call) => {
      requests.push(call.request);
      push = (update) => call.write(update);
      call.write(addUpdate([meshedPod, opaquePod]));
    };
    const io = new CapturedIo();
    const cancelled = server.nextCancellation();
    const exit = run(io, "get", WEB);
    await io.until((out) => out.includes("10.244.0.12"));
    push(removeUpdate(opaquePod));
    await io.until((out) => out.includes("\n\n"));
    io.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
    await cancelled; // the stream was cancelled, not left dangling

    const [first, second] = io.out.split("\n\n");
    expect(first?.split("\n").map((line) => line.replace(/ {2,}/g, "|"))).toEqual([
      `${WEB}|2 endpoints|+2`,
      "|IP|PORT|POD|OWNER|IDENTITY|PROTOCOL HINT|ZONE",
      expect.stringMatching(/^\+\|10\.244\.0\.9\|3306\|db-0\|statefulset\/db\|/),
      expect.stringMatching(/^\+\|10\.244\.0\.12\|8080\|web-5d9f8c6b7-x2x4p\|deployment\/web\|/),
    ]);
    expect(second?.split("\n").map((line) => line.replace(/ {2,}/g, "|"))).toEqual([
      `${WEB}|1 endpoint|-1`,
      "|IP|PORT|POD|OWNER|IDENTITY|PROTOCOL HINT|ZONE",
      expect.stringMatching(/^-\|10\.244\.0\.9\|3306\|db-0\|/),
      expect.stringMatching(/^\|10\.244\.0\.12\|8080\|/),
      "",
    ]);
    expect(io.out).not.toContain("\x1b");
    expect(io.listensForInterrupt).toBe(false);
    expect(requests.map((r) => [r.scheme, r.path, r.contextToken])).toEqual([["k8s", WEB, ""]]);
  });

  it("redraws in place with colors on a terminal, without colors under NO_COLOR", async () => {
    server.onGet = (call) => {
      call.write(addUpdate([meshedPod]));
      call.write(removeUpdate(meshedPod));
    };
    for (const [env, colored] of [
      [{}, true],
      [{ NO_COLOR: "1" }, false],
    ] as const) {
      const io = new CapturedIo({ isTTY: true, env });
      const exit = run(io, "get", WEB);
      await io.until((out) => out.includes("0 endpoints"));
      io.interrupt();
      expect(await exit).toBe(ExitCode.interrupted);
      expect(io.out.startsWith("\x1b[H\x1b[2J")).toBe(true);
      expect(io.out.split("\x1b[H\x1b[2J")).toHaveLength(3);
      expect(io.out.includes("\x1b[32m+")).toBe(colored);
      expect(io.out.includes("\x1b[31m-")).toBe(colored);
    }
  });

  it("--once prints the first set without marks and cancels the stream", async () => {
    server.onGet = (call) => call.write(addUpdate([meshedPod]));
    const io = new CapturedIo();
    const cancelled = server.nextCancellation();
    expect(await run(io, "get", "--once", WEB)).toBe(ExitCode.ok);
    await cancelled;
    expect(io.out.split("\n").map((line) => line.split(/ {2,}/).slice(0, 4))).toEqual([
      ["IP", "PORT", "POD", "OWNER"],
      ["10.244.0.12", "8080", "web-5d9f8c6b7-x2x4p", "deployment/web"],
      [""],
    ]);
    expect(io.err).toBe("");
  });

  it("--once -o json prints the proto JSON of the first message, addresses made readable", async () => {
    const update = addUpdate([meshedPod]);
    server.onGet = (call) => {
      call.write(update);
      call.write(removeUpdate(meshedPod));
    };
    const io = new CapturedIo();
    expect(await run(io, "get", "--once", "-o", "json", WEB)).toBe(ExitCode.ok);
    const json = toJson(UpdateSchema, update) as { add: { addrs: { addr: object }[] } };
    for (const a of json.add.addrs) Object.assign(a.addr, { address: "10.244.0.12:8080" });
    expect(io.out).toBe(`${JSON.stringify(json)}\n`);
  });

  it("-o json streams one line per message; -o yaml one document per message", async () => {
    server.onGet = (call) => {
      call.write(addUpdate([meshedPod]));
      call.write(removeUpdate(meshedPod));
    };
    const json = new CapturedIo();
    const exit = run(json, "get", "-o", "json", WEB);
    await json.until((out) => out.split("\n").length === 3);
    json.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
    expect(
      json.out
        .trimEnd()
        .split("\n")
        .map((line) => Object.keys(JSON.parse(line))),
    ).toEqual([["add"], ["remove"]]);

    const yaml = new CapturedIo();
    const yamlExit = run(yaml, "get", "-o", "yaml", WEB);
    await yaml.until((out) => out.includes("remove:"));
    yaml.interrupt();
    expect(await yamlExit).toBe(ExitCode.interrupted);
    expect(yaml.out).toMatch(/^---\nadd:\n[\s\S]*---\nremove:\n/);
  });

  it("--once on a silent service prints an empty table after --timeout and exits 0", async () => {
    const io = new CapturedIo();
    expect(await run(io, "get", "--once", "--timeout", "200ms", WEB)).toBe(ExitCode.ok);
    expect(io.out).toBe("IP  PORT  POD  OWNER  IDENTITY  PROTOCOL HINT  ZONE\n(no endpoints)\n");
  });

  it("a silent live watch shows the empty set and keeps watching", async () => {
    let push: () => void = () => {};
    server.onGet = (call) => {
      push = () => call.write(addUpdate([meshedPod]));
    };
    const io = new CapturedIo();
    const exit = run(io, "get", "--timeout", "100ms", WEB);
    await io.until((out) => out.includes("(no endpoints)"));
    expect(io.out).toContain("nothing received in 100ms; watching");
    push();
    await io.until((out) => out.includes("10.244.0.12"));
    io.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
  });

  it("sends the context token built from --ns/--node/--pod", async () => {
    server.onGet = (call) => {
      requests.push(call.request);
      call.write(addUpdate([meshedPod]));
    };
    const io = new CapturedIo();
    await run(io, "get", "--once", "--ns", "emojivoto", "--node", "node-a", "--pod", "web-1", WEB);
    expect(requests[0]?.contextToken).toBe('{"ns":"emojivoto","nodeName":"node-a","pod":"web-1"}');
  });
});

describe("dst profile", () => {
  it("--once renders the first profile", async () => {
    server.onGetProfile = (call) => call.write(booksProfile);
    const io = new CapturedIo();
    expect(await run(io, "profile", "--once", "books.booksapp.svc.cluster.local:7002")).toBe(
      ExitCode.ok,
    );
    expect(io.out).toMatch(/^fully qualified name {2}books\.booksapp\.svc\.cluster\.local\n/);
    expect(io.out).toContain("  GET /books/[^/]*  GET /books/{id}  yes        100ms");
  });

  it("-o json prints the proto JSON; live updates are appended as new views", async () => {
    server.onGetProfile = (call) => {
      call.write(booksProfile);
      call.write(create(DestinationProfileSchema, { fullyQualifiedName: "x.y.svc.cluster.local" }));
    };
    const json = new CapturedIo();
    expect(await run(json, "profile", "--once", "-o", "json", "x.y.svc.cluster.local")).toBe(0);
    expect(json.out).toBe(`${JSON.stringify(toJson(DestinationProfileSchema, booksProfile))}\n`);

    const live = new CapturedIo();
    const exit = run(live, "profile", "x.y.svc.cluster.local");
    await live.until((out) => out.includes("update 2"));
    live.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
    expect(live.out).toMatch(
      /^x\.y\.svc\.cluster\.local {2}update 1\nfully qualified name {2}books/,
    );
    expect(live.out).toContain(
      "\n\nx.y.svc.cluster.local  update 2\nfully qualified name  x.y.svc",
    );
  });

  it("--once exits 6 when no profile arrives within --timeout", async () => {
    const io = new CapturedIo();
    expect(await run(io, "profile", "--once", "--timeout", "150ms", "x.y.svc.cluster.local")).toBe(
      ExitCode.timedOut,
    );
    expect(io.err).toBe("dst: no profile for x.y.svc.cluster.local within 150ms\n");
    expect(io.out).toBe("");
  });
});

describe("dst endpoints", () => {
  it("queries every authority at once; silent ones have no endpoints, failures exit non-zero", async () => {
    server.onGet = (call) => {
      requests.push(call.request);
      if (call.request.path === WEB) call.write(addUpdate([meshedPod]));
      if (call.request.path === DB) {
        call.write(addUpdate([opaquePod], { namespace: "emojivoto", service: "db" }));
      }
      if (call.request.path.startsWith("nope.")) {
        fail(grpc.status.NOT_FOUND, "Service nope.emojivoto not found")(call);
      }
    };
    const io = new CapturedIo();
    const silent = "quiet.emojivoto.svc.cluster.local:80";
    const nope = "nope.emojivoto.svc.cluster.local:80";
    // The silent authority waits out the whole timeout; the others must answer well within it,
    // even on a loaded machine.
    const code = await run(io, "endpoints", "--timeout", "2s", WEB, silent, nope, DB);
    expect(code).toBe(ExitCode.notFound);
    expect(requests.map((r) => r.path).sort()).toEqual([DB, WEB, nope, silent].sort());
    expect(io.out.split("\n").map((line) => line.split(/ {2,}/).slice(0, 6))).toEqual([
      ["AUTHORITY", "NAMESPACE", "SERVICE", "IP", "PORT", "POD"],
      [WEB, "emojivoto", "web-svc", "10.244.0.12", "8080", "web-5d9f8c6b7-x2x4p"],
      [DB, "emojivoto", "db", "10.244.0.9", "3306", "db-0"],
      [`(no endpoints for ${silent})`],
      [""],
    ]);
    expect(io.err).toBe(`dst: ${nope}: Service nope.emojivoto not found (NOT_FOUND)\n`);
  });

  it("-o json writes one {authority, update} object per authority", async () => {
    const update = addUpdate([meshedPod]);
    server.onGet = (call) => {
      if (call.request.path === WEB) call.write(update);
    };
    const io = new CapturedIo();
    const silent = "quiet.emojivoto.svc.cluster.local:80";
    expect(await run(io, "endpoints", "--timeout", "2s", "-o", "json", WEB, silent)).toBe(0);
    expect(
      io.out
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { authority: WEB, update: messageJson(UpdateSchema, update) },
      { authority: silent },
    ]);
  });
});

describe("how a run ends", () => {
  it.each([
    [grpc.status.NOT_FOUND, "Service web-svc.emojivoto not found", ExitCode.notFound],
    [grpc.status.INVALID_ARGUMENT, "Invalid authority: a:b:c", ExitCode.invalidArgument],
    [grpc.status.UNKNOWN, 'service "web-svc" not found', ExitCode.failure],
  ])("status %s → the server's message and exit %s", async (code, details, exitCode) => {
    server.onGet = fail(code, details);
    server.onGetProfile = fail(code, details);
    for (const command of ["get", "profile"]) {
      const io = new CapturedIo();
      expect(await run(io, command, WEB)).toBe(exitCode);
      expect(io.err).toBe(`dst: ${details} (${grpc.status[code]})\n`);
    }
  });

  it("an unreachable server exits 3 naming the address", async () => {
    const addr = await unusedLoopbackAddress();
    for (const command of [
      ["get", WEB],
      ["profile", WEB],
      ["endpoints", WEB, DB],
    ]) {
      const io = new CapturedIo();
      expect(await runCli(["--addr", addr, ...command], io)).toBe(ExitCode.unreachable);
      expect(io.err).toContain(
        `cannot reach the destination server at ${addr}: connect ECONNREFUSED`,
      );
    }
  });

  it("a stream the server ends with OK prints a note and exits 0", async () => {
    server.onGet = (call) => {
      call.write(addUpdate([meshedPod]));
      call.end();
    };
    const io = new CapturedIo();
    expect(await run(io, "get", WEB)).toBe(ExitCode.ok);
    expect(io.out).toContain("10.244.0.12");
    expect(io.err).toMatch(/^dst: the server ended the stream with status OK .* resubscribe\n$/);
  });

  it("Ctrl-C before anything arrives cancels the stream and exits 130", async () => {
    const io = new CapturedIo();
    const cancelled = server.nextCancellation();
    const exit = run(io, "profile", WEB);
    await new Promise<void>((resolve) => {
      server.onGetProfile = () => resolve();
    });
    io.interrupt();
    expect(await exit).toBe(ExitCode.interrupted);
    await cancelled;
    expect(io.err).toBe("");
  });

  it("usage errors exit 2 with the command's usage; help and version exit 0", async () => {
    const bad = new CapturedIo();
    expect(await runCli(["get"], bad)).toBe(ExitCode.usage);
    expect(bad.err).toBe(`dst: get needs exactly one AUTHORITY, got 0\n\n${commandUsage.get}`);
    const help = new CapturedIo();
    expect(await runCli(["--help"], help)).toBe(ExitCode.ok);
    expect(help.out).toBe(rootUsage);
    const version = new CapturedIo();
    expect(await runCli(["--version"], version)).toBe(ExitCode.ok);
    expect(version.out).toBe(`dst ${cliVersion}\n`);
  });
});
