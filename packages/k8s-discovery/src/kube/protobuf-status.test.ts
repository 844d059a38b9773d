import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isProtobuf } from "./api-resource.js";
import { parseProtobufStatus } from "./protobuf-status.js";

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
