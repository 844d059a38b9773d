import { fileURLToPath } from "node:url";
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";
import { destinationApiFiles, file_grpc_health_v1_health } from "@destination/proto";
import { ipv4 } from "@destination/test-support/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureGrpcurl } from "../scripts/grpcurl.mjs";
import { tlsIdentityOf } from "./support/expected.js";
import { firstStreamedMessage, runGrpcurl } from "./support/grpcurl.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

// The real grpcurl against the example cluster, as a user would point it at the server. It is
// built once by `scripts/provision-grpcurl.mjs` (the package's test script runs it first); when
// it cannot be built these tests fail rather than skip.
const EXAMPLES = fileURLToPath(new URL("../../../examples", import.meta.url));

let grpcurl: string;
let server: TestServer;
let target: string;
beforeAll(async () => {
  grpcurl = await ensureGrpcurl();
  server = await startTestServer({ manifests: EXAMPLES });
  target = `127.0.0.1:${server.grpcPort}`;
}, 600_000);
afterAll(async () => {
  await server?.close();
});

const call = (...args: string[]) => runGrpcurl(grpcurl, ["-plaintext", ...args]);

/** Every message and enum of a file, nested ones included, by full name. */
function typesOf(nested: readonly (DescMessage | DescEnum)[]): (DescMessage | DescEnum)[] {
  return nested.flatMap((t) =>
    t.kind === "message" ? [t, ...typesOf([...t.nestedMessages, ...t.nestedEnums])] : [t],
  );
}
const servedFiles = [...destinationApiFiles, file_grpc_health_v1_health];
const servedTypes = servedFiles.flatMap((f) => typesOf([...f.messages, ...f.enums]));

describe("grpcurl through server reflection", () => {
  it("lists the services", async () => {
    expect(await call(target, "list")).toEqual({
      code: 0,
      stdout: "grpc.health.v1.Health\nio.linkerd.proxy.destination.Destination\n",
      stderr: "",
    });
  });

  it("describes the Destination service with fully-qualified types", async () => {
    expect(await call(target, "describe", "io.linkerd.proxy.destination.Destination")).toEqual({
      code: 0,
      stdout: [
        "io.linkerd.proxy.destination.Destination is a service:",
        "service Destination {",
        "  rpc Get ( .io.linkerd.proxy.destination.GetDestination ) returns ( stream .io.linkerd.proxy.destination.Update );",
        "  rpc GetProfile ( .io.linkerd.proxy.destination.GetDestination ) returns ( stream .io.linkerd.proxy.destination.DestinationProfile );",
        "}",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("describes the health service", async () => {
    const run = await call(target, "describe", "grpc.health.v1.Health");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "rpc Check ( .grpc.health.v1.HealthCheckRequest ) returns ( .grpc.health.v1.HealthCheckResponse );",
    );
  });

  it("describes messages whose fields reference other files and maps", async () => {
    const addrSet = await call(target, "describe", "io.linkerd.proxy.destination.AddrSet");
    expect(addrSet.stdout).toBe(
      [
        "io.linkerd.proxy.destination.AddrSet is a message:",
        "message AddrSet {",
        "  repeated .io.linkerd.proxy.net.TcpAddress addrs = 1;",
        "}",
        "",
      ].join("\n"),
    );
    const list = await call(target, "describe", "grpc.health.v1.HealthListResponse");
    expect(list.stdout).toContain("map<string, .grpc.health.v1.HealthCheckResponse> statuses = 1;");
  });

  it("describes every message and enum the server serves", async () => {
    expect(servedTypes.length).toBeGreaterThan(40);
    const failures: string[] = [];
    await Promise.all(
      servedTypes.map(async (t) => {
        const run = await call(target, "describe", t.typeName);
        const said = run.stdout.split("\n")[0] ?? "";
        if (run.code !== 0 || !said.startsWith(`${t.typeName} is `)) {
          failures.push(`${t.typeName}: exit ${run.code} ${said}${run.stderr}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it("checks health as SERVING", async () => {
    expect(await call(target, "grpc.health.v1.Health/Check")).toEqual({
      code: 0,
      stdout: '{\n  "status": "SERVING"\n}\n',
      stderr: "",
    });
    const destination = await call(
      "-d",
      '{"service":"io.linkerd.proxy.destination.Destination"}',
      target,
      "grpc.health.v1.Health/Check",
    );
    expect(JSON.parse(destination.stdout)).toEqual({ status: "SERVING" });
  });

  it("streams web-svc's endpoints from Get", async () => {
    const first = await firstStreamedMessage(grpcurl, [
      "-plaintext",
      "-d",
      '{"path":"web-svc.emojivoto.svc.cluster.local:80"}',
      target,
      "io.linkerd.proxy.destination.Destination/Get",
    ]);
    expect(first).toEqual({
      add: {
        addrs: [
          expect.objectContaining({
            addr: { ip: { ipv4: ipv4("10.244.1.10") }, port: 8080 },
            weight: 10000,
            metricLabels: expect.objectContaining({
              deployment: "web",
              pod: "web-5f86686c4d-58xq9",
            }),
            tlsIdentity: tlsIdentityOf("web", "emojivoto"),
          }),
        ],
        metricLabels: { namespace: "emojivoto", service: "web-svc" },
      },
    });
  });
});
