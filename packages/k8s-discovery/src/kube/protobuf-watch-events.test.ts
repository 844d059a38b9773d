import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { PodSchema } from "../gen/k8s/core/v1/core_pb.js";
import {
  PartialObjectMetadataSchema,
  StatusSchema,
  WatchEventSchema,
} from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { PROTOBUF_MAGIC } from "./api-resource.js";
import { ProtobufError } from "./protobuf-decode.js";
import { readPod } from "./protobuf-pod.js";
import { ProtobufWatchFrames, readProtobufWatchEvent } from "./protobuf-watch-events.js";

/** An object as the API server embeds it in an event: the magic, then the envelope. */
function embedded(raw: Uint8Array, kind: string): Uint8Array {
  const envelope = toBinary(
    UnknownSchema,
    create(UnknownSchema, { typeMeta: { apiVersion: "v1", kind }, raw }),
  );
  return Buffer.concat([PROTOBUF_MAGIC, envelope]);
}

function event(type: string, object: Uint8Array): Uint8Array {
  return toBinary(WatchEventSchema, create(WatchEventSchema, { type, object: { raw: object } }));
}

function framed(...events: Uint8Array[]): Buffer {
  return Buffer.concat(
    events.flatMap((e) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(e.length);
      return [length, Buffer.from(e)];
    }),
  );
}

const pod = (name: string, resourceVersion: string) =>
  embedded(
    toBinary(
      PodSchema,
      create(PodSchema, {
        metadata: { name, namespace: "shop", resourceVersion, labels: { app: "web" } },
        spec: { nodeName: "node-a", containers: [{ name: "app", ports: [{ containerPort: 80 }] }] },
        status: { phase: "Running", podIP: "10.1.0.7" },
      }),
    ),
    "Pod",
  );

const STREAM = framed(
  event("ADDED", pod("web-0", "10")),
  event("MODIFIED", pod("web-0", "11")),
  event(
    "BOOKMARK",
    embedded(
      toBinary(
        PartialObjectMetadataSchema,
        create(PartialObjectMetadataSchema, { metadata: { resourceVersion: "12" } }),
      ),
      "Pod",
    ),
  ),
  event("DELETED", pod("web-0", "13")),
  event(
    "ERROR",
    embedded(
      toBinary(
        StatusSchema,
        create(StatusSchema, { code: 410, reason: "Expired", message: "too old resource version" }),
      ),
      "Status",
    ),
  ),
);

function readStream(bytes: Buffer, chunkSize: number) {
  const frames = new ProtobufWatchFrames();
  const events = [];
  for (let at = 0; at < bytes.length; at += chunkSize) {
    for (const frame of frames.push(bytes.subarray(at, at + chunkSize))) {
      events.push(readProtobufWatchEvent(frame, readPod));
    }
  }
  frames.end();
  return events;
}

describe("protobuf watch streams", () => {
  it("give every kind of event, whatever the chunks' boundaries", () => {
    const whole = readStream(STREAM, STREAM.length);
    expect(whole.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "BOOKMARK", "DELETED", "ERROR"]);
    expect(whole[1]).toStrictEqual({
      type: "MODIFIED",
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: "web-0",
          namespace: "shop",
          resourceVersion: "11",
          labels: { app: "web" },
        },
        spec: { nodeName: "node-a", containers: [{ name: "app", ports: [{ containerPort: 80 }] }] },
        status: { phase: "Running", podIP: "10.1.0.7" },
      },
    });
    expect(whole[2]).toEqual({ type: "BOOKMARK", resourceVersion: "12" });
    expect(whole[4]).toEqual({
      type: "ERROR",
      status: { code: 410, reason: "Expired", message: "too old resource version" },
    });
    for (const size of [1, 2, 3, 5, 7, 64]) expect(readStream(STREAM, size)).toStrictEqual(whole);
  });

  it("refuse a stream that ends inside a frame", () => {
    const frames = new ProtobufWatchFrames();
    expect(frames.push(STREAM.subarray(0, STREAM.length - 1))).toHaveLength(4);
    expect(() => frames.end()).toThrow(ProtobufError);
  });

  it("refuse a frame past the limit before its bytes arrive", () => {
    const frames = new ProtobufWatchFrames(1024);
    expect(() => frames.push(Buffer.from([0, 0, 4, 1]))).toThrow(/past the limit/);
    expect(() => new ProtobufWatchFrames().push(Buffer.from([0xff, 0, 0, 0]))).toThrow(
      /4278190080 bytes is past the limit/,
    );
  });

  it("refuse events that are not what the API server sends", () => {
    const read = (bytes: Uint8Array) => () => readProtobufWatchEvent(bytes, readPod);
    expect(read(event("ADDED", Buffer.from("{}")))).toThrow(/magic/);
    expect(read(event("ADDED", pod("", "1")))).toThrow(/without a name/);
    expect(read(event("SYNC", pod("web-0", "1")))).toThrow(/unknown watch event type "SYNC"/);
    expect(read(toBinary(WatchEventSchema, create(WatchEventSchema, { type: "ADDED" })))).toThrow(
      /without an object/,
    );
    expect(read(Buffer.from([0x0a, 0x05, 0x41]))).toThrow(ProtobufError);
  });
});
