// gRPC smoke test over a real loopback socket: the service definition works for grpc-js on both
// ends, and the server may write messages and pre-encoded bytes interchangeably.
import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tcpAddressFromString } from "./address.js";
import { DestinationClient } from "./client.js";
import {
  Destination as DestinationDesc,
  type DestinationProfile,
  DestinationProfileSchema,
  type GetDestination,
  GetDestinationSchema,
  type Update,
  UpdateSchema,
} from "./gen/destination_pb.js";
import {
  DestinationMethodPath,
  type DestinationServer,
  DestinationService,
  encodeDestinationProfile,
  encodeUpdate,
} from "./service.js";

const first = create(UpdateSchema, {
  update: {
    case: "add",
    value: {
      addrs: [{ addr: tcpAddressFromString("10.0.0.1:8080"), weight: 10000, protocolHint: {} }],
      metricLabels: { service: "web" },
    },
  },
});
const second = create(UpdateSchema, {
  update: { case: "remove", value: { addrs: [tcpAddressFromString("10.0.0.1:8080")] } },
});
const profile = create(DestinationProfileSchema, {
  fullyQualifiedName: "web.ns.svc.cluster.local",
  retryBudget: { minRetriesPerSecond: 10 },
});

function collect<T>(stream: grpc.ClientReadableStream<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    stream.on("data", (m: T) => out.push(m));
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
  });
}

describe("Destination service over grpc-js", () => {
  const server = new grpc.Server();
  const requests: GetDestination[] = [];
  let client: InstanceType<typeof DestinationClient>;

  const impl: DestinationServer = {
    get(call) {
      requests.push(call.request);
      call.write(first); // a message…
      call.write(encodeUpdate(second)); // …and shared pre-encoded bytes
      call.end();
    },
    getProfile(call) {
      requests.push(call.request);
      // A plain Uint8Array (not a Buffer) is passed through as well.
      call.write(new Uint8Array(encodeDestinationProfile(profile)));
      call.write(profile);
      call.end();
    },
  };

  beforeAll(async () => {
    server.addService(DestinationService, impl);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    client = new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  it("Get streams both updates, decoded as Update messages", async () => {
    const request = create(GetDestinationSchema, {
      scheme: "k8s",
      path: "web.ns.svc.cluster.local:8080",
      contextToken: '{"ns":"ns","nodeName":"node-1"}',
    });
    const got: Update[] = await collect(client.get(request));
    expect(got).toEqual([first, second]);
    expect(requests.at(-1)).toEqual(request);
  });

  it("GetProfile streams profiles from bytes and from messages alike", async () => {
    const got: DestinationProfile[] = await collect(
      client.getProfile(create(GetDestinationSchema, { path: "web.ns.svc.cluster.local:80" })),
    );
    expect(got).toEqual([profile, profile]);
  });

  it("uses the paths declared by the schema", () => {
    expect(DestinationMethodPath.get).toBe(
      `/${DestinationDesc.typeName}/${DestinationDesc.method.get.name}`,
    );
    expect(DestinationMethodPath.getProfile).toBe(
      `/${DestinationDesc.typeName}/${DestinationDesc.method.getProfile.name}`,
    );
    expect(DestinationService.get.path).toBe("/io.linkerd.proxy.destination.Destination/Get");
    expect(DestinationService.getProfile.path).toBe(
      "/io.linkerd.proxy.destination.Destination/GetProfile",
    );
    expect(DestinationService.get.responseStream).toBe(true);
    expect(DestinationService.getProfile.responseStream).toBe(true);
  });

  it("passes pre-encoded bytes through without copying", () => {
    const bytes = encodeUpdate(first);
    expect(DestinationService.get.responseSerialize(bytes)).toBe(bytes);
    const plain = new Uint8Array(bytes);
    const wrapped = DestinationService.get.responseSerialize(plain);
    expect(Buffer.isBuffer(wrapped)).toBe(true);
    expect(wrapped.buffer).toBe(plain.buffer);
  });
});
