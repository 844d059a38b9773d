// What both methods' request deserializer makes of the bytes a client sends.

import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { GetDestinationSchema } from "./gen/destination_pb.js";
import { DestinationService } from "./service.js";

const deserializers = [
  DestinationService.get.requestDeserialize,
  DestinationService.getProfile.requestDeserialize,
];

describe("GetDestination requests", () => {
  it("reads the request a proxy sends", () => {
    const request = create(GetDestinationSchema, {
      scheme: "k8s",
      path: "web.emojivoto.svc.cluster.local:8080",
      contextToken: '{"ns":"emojivoto","nodeName":"node-1","pod":"vote-bot-7b6c9f5d4-abcde"}',
    });
    const bytes = Buffer.from(toBinary(GetDestinationSchema, request));
    for (const deserialize of deserializers) {
      expect(deserialize(bytes)).toEqual(request);
    }
  });

  it("reads an empty request as every field empty", () => {
    for (const deserialize of deserializers) {
      expect(deserialize(Buffer.alloc(0))).toEqual(create(GetDestinationSchema));
    }
  });

  it("keeps the last of a repeated field and skips unknown ones", () => {
    // scheme "a", an unknown varint field 9, then scheme "b".
    const bytes = Buffer.from([0x0a, 0x01, 0x61, 0x48, 0x05, 0x0a, 0x01, 0x62]);
    for (const deserialize of deserializers) {
      const decoded = deserialize(bytes);
      expect(decoded.scheme).toBe("b");
      expect(decoded.path).toBe("");
    }
  });

  it("refuses truncated bytes and text that is not UTF-8", () => {
    const truncated = Buffer.from([0x12, 0x05, 0x61, 0x62]);
    const notUtf8 = Buffer.from([0x12, 0x02, 0xc3, 0x28]);
    for (const deserialize of deserializers) {
      expect(() => deserialize(truncated)).toThrow();
      expect(() => deserialize(notUtf8)).toThrow(/UTF-8|utf-8|encoded/i);
    }
  });
});
