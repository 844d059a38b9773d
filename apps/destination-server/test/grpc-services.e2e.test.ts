import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { protoPath as healthProtoPath } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server.js";

// Generic clients built from the services' own .proto files, as grpcurl would use them.
type Ctor = new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client;
const require = createRequire(import.meta.url);
const reflectionProto = join(
  dirname(require.resolve("@grpc/reflection")),
  "../proto/grpc/reflection/v1/reflection.proto",
);
const loaded = grpc.loadPackageDefinition(
  loadSync([healthProtoPath, reflectionProto], { keepCase: true, longs: String, enums: String }),
) as unknown as {
  grpc: { health: { v1: { Health: Ctor } }; reflection: { v1: { ServerReflection: Ctor } } };
};

type HealthClient = grpc.Client & {
  check(req: object, cb: (err: unknown, res: { status: string }) => void): void;
  watch(req: object): grpc.ClientReadableStream<{ status: string }>;
  list(
    req: object,
    cb: (err: unknown, res: { statuses: Record<string, { status: string }> }) => void,
  ): void;
};
const healthClient = () =>
  new loaded.grpc.health.v1.Health(address, grpc.credentials.createInsecure()) as HealthClient;

let server: TestServer;
let address: string;
beforeAll(async () => {
  server = await startTestServer();
  address = `127.0.0.1:${server.grpcPort}`;
});
afterAll(async () => {
  await server.close();
});

describe("gRPC services beside Destination", () => {
  it("answers health checks as SERVING", async () => {
    const health = new loaded.grpc.health.v1.Health(
      address,
      grpc.credentials.createInsecure(),
    ) as grpc.Client & {
      check(req: object, cb: (err: unknown, res: { status: string }) => void): void;
    };
    for (const service of ["", "io.linkerd.proxy.destination.Destination"]) {
      const res = await new Promise<{ status: string }>((resolve, reject) =>
        health.check({ service }, (err, r) => (err ? reject(err) : resolve(r))),
      );
      expect(res.status).toBe("SERVING");
    }
    health.close();
  });

  it("answers NOT_FOUND for a service it has no status for", async () => {
    const health = healthClient();
    const err = await new Promise<grpc.ServiceError>((resolve, reject) =>
      health.check({ service: "nope" }, (e) => (e ? resolve(e as grpc.ServiceError) : reject())),
    );
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toBe("Health status unknown for service nope");
    health.close();
  });

  it("watches a status, the current one first, SERVICE_UNKNOWN for an unknown service", async () => {
    const health = healthClient();
    const first = (service: string) =>
      new Promise<string>((resolve, reject) => {
        const call = health.watch({ service });
        call.on("data", (res: { status: string }) => {
          resolve(res.status);
          call.cancel();
        });
        call.on("error", (err: grpc.ServiceError) => {
          if (err.code !== grpc.status.CANCELLED) reject(err);
        });
      });
    expect(await first("")).toBe("SERVING");
    expect(await first("nope")).toBe("SERVICE_UNKNOWN");
    health.close();
  });

  it("lists the status of every service", async () => {
    const health = healthClient();
    const res = await new Promise<{ statuses: Record<string, { status: string }> }>(
      (resolve, reject) => health.list({}, (err, r) => (err ? reject(err) : resolve(r))),
    );
    expect(res.statuses).toEqual({
      "": { status: "SERVING" },
      "io.linkerd.proxy.destination.Destination": { status: "SERVING" },
    });
    health.close();
  });

  it("describes the Destination API through server reflection", async () => {
    const reflection = new loaded.grpc.reflection.v1.ServerReflection(
      address,
      grpc.credentials.createInsecure(),
    ) as grpc.Client & {
      ServerReflectionInfo(): grpc.ClientDuplexStream<object, Record<string, never>>;
    };
    const ask = (request: object) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const call = reflection.ServerReflectionInfo();
        call.on("data", (res) => {
          resolve(res);
          call.end();
        });
        call.on("error", reject);
        call.write(request);
      });

    const listed = (await ask({ list_services: "" })) as {
      list_services_response: { service: { name: string }[] };
    };
    expect(listed.list_services_response.service.map((s) => s.name)).toEqual(
      expect.arrayContaining(["io.linkerd.proxy.destination.Destination", "grpc.health.v1.Health"]),
    );

    const files = (await ask({
      file_containing_symbol: "io.linkerd.proxy.destination.Destination",
    })) as { file_descriptor_response: { file_descriptor_proto: Buffer[] } };
    const descriptors = files.file_descriptor_response.file_descriptor_proto.map((bytes) =>
      fromBinary(FileDescriptorProtoSchema, bytes),
    );
    const service = descriptors.flatMap((d) => d.service).find((s) => s.name === "Destination");
    expect(
      service?.method.map((m) => [m.name, m.inputType, m.outputType, m.serverStreaming]),
    ).toEqual([
      [
        "Get",
        ".io.linkerd.proxy.destination.GetDestination",
        ".io.linkerd.proxy.destination.Update",
        true,
      ],
      [
        "GetProfile",
        ".io.linkerd.proxy.destination.GetDestination",
        ".io.linkerd.proxy.destination.DestinationProfile",
        true,
      ],
    ]);
    reflection.close();
  });

  it("answers reflection calls that arrive together, before its library has loaded", async () => {
    // A server of its own: these are its first reflection calls.
    const fresh = await startTestServer();
    try {
      const reflection = new loaded.grpc.reflection.v1.ServerReflection(
        `127.0.0.1:${fresh.grpcPort}`,
        grpc.credentials.createInsecure(),
      ) as grpc.Client & {
        ServerReflectionInfo(): grpc.ClientDuplexStream<object, Record<string, unknown>>;
      };
      // Each stream sends two requests at once; the answers must come back in order.
      const twoAnswers = () =>
        new Promise<string[]>((resolve, reject) => {
          const call = reflection.ServerReflectionInfo();
          const kinds: string[] = [];
          call.on("data", (res: Record<string, unknown>) => {
            kinds.push(Object.keys(res).find((k) => k.endsWith("_response")) ?? "?");
            if (kinds.length === 2) {
              resolve(kinds);
              call.end();
            }
          });
          call.on("error", reject);
          call.write({ list_services: "" });
          call.write({ file_containing_symbol: "io.linkerd.proxy.destination.Destination" });
        });
      const answers = await Promise.all([twoAnswers(), twoAnswers(), twoAnswers()]);
      for (const kinds of answers) {
        expect(kinds).toEqual(["list_services_response", "file_descriptor_response"]);
      }
      reflection.close();
    } finally {
      await fresh.close();
    }
  });
});
