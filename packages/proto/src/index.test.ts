// The public entry point: the README example runs as written, and the names consumers rely on
// are exported.
import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import {
  create,
  fromBinary,
  ipAddressToString,
  tcpAddressFromString,
  toBinary,
  toJson,
  UpdateSchema,
} from "./index.js";

describe("@destination/proto public API", () => {
  it("runs the README example", () => {
    const update = create(UpdateSchema, {
      update: {
        case: "add",
        value: {
          addrs: [
            {
              addr: tcpAddressFromString("172.17.0.12:8080"),
              weight: 10000,
              metricLabels: { pod: "web-1" },
              protocolHint: { protocol: { case: "h2", value: {} } },
            },
          ],
        },
      },
    });
    const bytes = toBinary(UpdateSchema, update);
    const back = fromBinary(UpdateSchema, bytes);
    expect(back).toEqual(update);
    expect(toJson(UpdateSchema, update)).toEqual({
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: 2886795276 }, port: 8080 },
            weight: 10000,
            metricLabels: { pod: "web-1" },
            protocolHint: { h2: {} },
          },
        ],
      },
    });
    if (back.update.case === "add") {
      const ip = back.update.value.addrs[0]?.addr?.ip;
      expect(ip && ipAddressToString(ip)).toBe("172.17.0.12");
    }
  });

  it.each([
    // protobuf-es runtime
    "create",
    "toBinary",
    "fromBinary",
    "toJson",
    "fromJson",
    "toJsonString",
    "equals",
    "clone",
    // schemas
    "UpdateSchema",
    "WeightedAddrSetSchema",
    "WeightedAddrSchema",
    "TlsIdentitySchema",
    "ProtocolHintSchema",
    "AuthorityOverrideSchema",
    "Http2ClientParamsSchema",
    "DestinationProfileSchema",
    "RouteSchema",
    "RequestMatchSchema",
    "ResponseMatchSchema",
    "ResponseClassSchema",
    "RetryBudgetSchema",
    "WeightedDstSchema",
    "GetDestinationSchema",
    "MetadataSchema",
    "ResourceSchema",
    "TcpAddressSchema",
    "IPAddressSchema",
    "HttpMethodSchema",
    "HttpMethod_Registered",
    "PathMatchSchema",
    "HttpStatusRangeSchema",
    "DurationSchema",
    // descriptors
    "file_destination",
    "file_net",
    "file_meta",
    "file_http_types",
    "file_google_protobuf_duration",
    "destinationApiFiles",
    "destinationApiRegistry",
    "Destination",
    // gRPC
    "DestinationService",
    "DestinationMethodPath",
    "encodeUpdate",
    "encodeDestinationProfile",
    // helpers
    "tcpAddressFromString",
    "tcpAddressToString",
    "ipAddressFromString",
    "ipAddressToString",
    "InvalidAddressError",
    "durationFromMs",
    "durationToMs",
    "durationFromNanos",
    "durationToNanos",
  ])("exports %s", (name) => {
    expect(api).toHaveProperty(name);
  });

  it("lists the API's files with dependencies first", () => {
    expect(api.destinationApiFiles.map((f) => f.name)).toEqual([
      "google/protobuf/duration",
      "http_types",
      "meta",
      "net",
      "destination",
    ]);
    expect(api.destinationApiRegistry.getService("io.linkerd.proxy.destination.Destination")).toBe(
      api.Destination,
    );
  });
});
