import { readFileSync } from "node:fs";
import { fromBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { PodSchema } from "../gen/k8s/core/v1/core_pb.js";
import { EncodedListSchema } from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { isProtobuf } from "./api-resource.js";
import { decodeMessage, ProtobufError, parseProtobufStatus } from "./protobuf-decode.js";

// A pod from a real kube-apiserver (see testdata/README.md): most of its bytes are fields the
// schema in proto/ does not declare.
const body = readFileSync(new URL("./testdata/pods.pb", import.meta.url));
const list = fromBinary(EncodedListSchema, fromBinary(UnknownSchema, body.subarray(4)).raw);
const podBytes = list.items[0] as Uint8Array;

describe("decodeMessage", () => {
  it("skips the fields the schema does not declare instead of keeping them", () => {
    expect(fromBinary(PodSchema, podBytes).spec?.$unknown?.length).toBeGreaterThan(0);
    const pod = decodeMessage(PodSchema, podBytes);
    expect(pod.spec?.$unknown).toBeUndefined();
    expect(pod.status?.$unknown).toBeUndefined();
    expect(pod.metadata?.name).not.toBe("");
  });

  it("refuses bytes cut short with a ProtobufError naming the message", () => {
    const cut = podBytes.subarray(0, podBytes.length - 3);
    expect(() => decodeMessage(PodSchema, cut)).toThrow(ProtobufError);
    expect(() => decodeMessage(PodSchema, cut)).toThrow(/not a Pod/);
  });
});

describe("protobuf Status", () => {
  it("reads the code, reason and message of an error the API server sent as protobuf", () => {
    // A list with a bogus continue token, from a real kube-apiserver: see testdata/README.md.
    const body = readFileSync(new URL("./testdata/status-bad-request.pb", import.meta.url));
    expect(parseProtobufStatus(body)).toEqual({
      code: 400,
      reason: "BadRequest",
      message: expect.stringMatching(/^invalid continue token/),
    });
  });

  it("gives nothing for a body that is not a protobuf Status", () => {
    expect(parseProtobufStatus(Buffer.from('{"kind":"Status"}'))).toEqual({});
    expect(parseProtobufStatus(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x7f]))).toEqual({});
  });

  it("recognises the protobuf media type with or without parameters", () => {
    expect(isProtobuf("application/vnd.kubernetes.protobuf")).toBe(true);
    expect(isProtobuf("application/vnd.kubernetes.protobuf;stream=watch")).toBe(true);
    expect(isProtobuf("application/json")).toBe(false);
    expect(isProtobuf(undefined)).toBe(false);
  });
});
