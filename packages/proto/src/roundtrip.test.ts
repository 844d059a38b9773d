// Every field of the two streamed messages survives binary and proto-JSON round trips, and the
// presence rules hold on the wire (see README "Presence on the wire").

import type { DescMessage, Message } from "@bufbuild/protobuf";
import {
  create,
  equals,
  fromBinary,
  fromJson,
  fromJsonString,
  toBinary,
  toJson,
  toJsonString,
} from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { describe, expect, it } from "vitest";
import { ipAddressFromString, tcpAddressFromString } from "./address.js";
import { destinationApiRegistry } from "./descriptors.js";
import { durationFromMs } from "./duration.js";
import {
  type DestinationProfile,
  DestinationProfileSchema,
  ProtocolHintSchema,
  type Update,
  UpdateSchema,
  WeightedAddrSchema,
} from "./gen/destination_pb.js";
import { HttpMethod_Registered } from "./gen/http_types_pb.js";

const identity = "web.emojivoto.serviceaccount.identity.linkerd.cluster.local";

function fullUpdate(): Update {
  return create(UpdateSchema, {
    update: {
      case: "add",
      value: {
        metricLabels: { namespace: "emojivoto", service: "web" },
        addrs: [
          {
            addr: tcpAddressFromString("172.17.0.12:8080"),
            weight: 10000,
            metricLabels: { pod: "web-1", deployment: "web", zone_locality: "local" },
            tlsIdentity: {
              strategy: { case: "dnsLikeIdentity", value: { name: identity } },
              serverName: { name: identity },
            },
            protocolHint: { protocol: { case: "h2", value: {} } },
            authorityOverride: { authorityOverride: "web.emojivoto.svc.cluster.local:80" },
            http2: {
              flowControl: {
                initialConnectionWindowSize: 1 << 20,
                initialStreamWindowSize: 1 << 16,
                adaptiveFlowControl: true,
              },
              keepAlive: {
                interval: durationFromMs(10_000),
                timeout: durationFromMs(1_500),
                whileIdle: true,
              },
              internals: {
                maxConcurrentResetStreams: 20,
                maxFrameSize: 16_384,
                maxSendBufSize: 409_600,
              },
            },
            resourceRef: {
              kind: {
                case: "resource",
                value: { group: "core", kind: "Pod", name: "web-1", namespace: "emojivoto" },
              },
            },
          },
          {
            addr: tcpAddressFromString("[2001:db8::68]:4143"),
            weight: 100000,
            tlsIdentity: {
              strategy: {
                case: "uriLikeIdentity",
                value: { uri: "spiffe://root.linkerd.cluster.local/ew" },
              },
              serverName: { name: "ew.linkerd.cluster.local" },
            },
            protocolHint: {
              protocol: { case: "opaque", value: {} },
              opaqueTransport: { inboundPort: 4143 },
            },
            resourceRef: { kind: { case: "default", value: "unknown" } },
          },
        ],
      },
    },
  });
}

/** The remaining cases of the Update oneof. */
function otherUpdates(): Update[] {
  return [
    create(UpdateSchema, {
      update: { case: "remove", value: { addrs: [tcpAddressFromString("0.0.0.0:80")] } },
    }),
    create(UpdateSchema, { update: { case: "noEndpoints", value: { exists: true } } }),
    create(UpdateSchema, { update: { case: "noEndpoints", value: { exists: false } } }),
  ];
}

function fullProfile(): DestinationProfile {
  return create(DestinationProfileSchema, {
    fullyQualifiedName: "web.emojivoto.svc.cluster.local",
    opaqueProtocol: true,
    routes: [
      {
        condition: {
          match: {
            case: "all",
            value: {
              matches: [
                {
                  match: {
                    case: "method",
                    value: { type: { case: "registered", value: HttpMethod_Registered.GET } },
                  },
                },
                { match: { case: "path", value: { regex: "/api/list" } } },
                {
                  match: {
                    case: "any",
                    value: {
                      matches: [
                        {
                          match: {
                            case: "method",
                            value: { type: { case: "unregistered", value: "PURGE" } },
                          },
                        },
                        {
                          match: {
                            case: "not",
                            value: { match: { case: "path", value: { regex: "^/health" } } },
                          },
                        },
                      ],
                    },
                  },
                },
              ],
            },
          },
        },
        responseClasses: [
          {
            condition: { match: { case: "status", value: { min: 500, max: 599 } } },
            isFailure: true,
          },
          {
            condition: {
              match: {
                case: "all",
                value: {
                  matches: [
                    {
                      match: {
                        case: "not",
                        value: { match: { case: "status", value: { min: 429 } } },
                      },
                    },
                    { match: { case: "any", value: { matches: [] } } },
                  ],
                },
              },
            },
          },
        ],
        metricsLabels: { route: "list" },
        isRetryable: true,
        timeout: durationFromMs(200),
      },
    ],
    // float32 on the wire: use a value that survives the narrowing.
    retryBudget: {
      retryRatio: Math.fround(0.2),
      minRetriesPerSecond: 10,
      ttl: durationFromMs(10_000),
    },
    dstOverrides: [
      {
        authority: "web-v2.emojivoto.svc.cluster.local:8080",
        weight: 5000,
        backendRef: {
          kind: {
            case: "resource",
            value: {
              group: "core",
              kind: "Service",
              name: "web-v2",
              namespace: "emojivoto",
              port: 8080,
            },
          },
        },
      },
      { authority: "web-v1.emojivoto.svc.cluster.local:8080", weight: 5000 },
    ],
    endpoint: create(WeightedAddrSchema, {
      addr: tcpAddressFromString("10.0.0.1:8080"),
      weight: 10000,
      metricLabels: { pod: "web-1" },
      protocolHint: {},
    }),
    parentRef: {
      kind: {
        case: "resource",
        value: {
          group: "core",
          kind: "Service",
          name: "web",
          namespace: "emojivoto",
          port: 8080,
          section: "http",
        },
      },
    },
    profileRef: {
      kind: {
        case: "resource",
        value: {
          group: "linkerd.io",
          kind: "ServiceProfile",
          name: "web.emojivoto.svc.cluster.local",
          namespace: "emojivoto",
        },
      },
    },
  });
}

/** Every field (as `Type.field`) reachable from the given roots' schemas. */
function reachableFields(...roots: DescMessage[]): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const visit = (desc: DescMessage): void => {
    if (seen.has(desc.typeName)) return;
    seen.add(desc.typeName);
    for (const f of desc.fields) {
      out.add(`${desc.typeName}.${f.name}`);
      if (f.message) visit(f.message);
    }
  };
  for (const r of roots) visit(r);
  return out;
}

/** Every field that is set somewhere in the given messages. */
function setFields(...messages: [DescMessage, Message][]): Set<string> {
  const out = new Set<string>();
  const visit = (r: ReflectMessage): void => {
    for (const f of r.fields) {
      if (!r.isSet(f)) continue;
      out.add(`${r.desc.typeName}.${f.name}`);
      if (f.fieldKind === "message") visit(r.get(f));
      if (f.fieldKind === "list" && f.listKind === "message") {
        for (const item of r.get(f)) visit(item as ReflectMessage);
      }
    }
  };
  for (const [desc, msg] of messages) visit(reflect(desc, msg));
  return out;
}

describe("the fixtures", () => {
  it("set every field reachable from Update and DestinationProfile at least once", () => {
    const covered = setFields(
      [UpdateSchema, fullUpdate()],
      ...otherUpdates().map((u): [DescMessage, Message] => [UpdateSchema, u]),
      [DestinationProfileSchema, fullProfile()],
    );
    const missing = [...reachableFields(UpdateSchema, DestinationProfileSchema)].filter(
      (f) => !covered.has(f),
    );
    expect(missing).toEqual([]);
  });
});

describe("Update round trips", () => {
  it("binary", () => {
    const u = fullUpdate();
    const back = fromBinary(UpdateSchema, toBinary(UpdateSchema, u));
    expect(equals(UpdateSchema, back, u)).toBe(true);
    expect(back).toEqual(u);
  });

  it("proto JSON", () => {
    const u = fullUpdate();
    const json = toJson(UpdateSchema, u);
    expect(equals(UpdateSchema, fromJson(UpdateSchema, json), u)).toBe(true);
    expect(fromJsonString(UpdateSchema, toJsonString(UpdateSchema, u))).toEqual(u);
    // Spot-check the JSON mapping: IPv6 halves are fixed64 → decimal strings; durations "10s".
    expect(json).toMatchObject({
      add: {
        addrs: [
          { weight: 10000, http2: { keepAlive: { interval: "10s", timeout: "1.500s" } } },
          {
            addr: { ip: { ipv6: { first: String(0x20010db800000000n), last: "104" } }, port: 4143 },
          },
        ],
      },
    });
  });

  it("other cases of the oneof", () => {
    for (const u of otherUpdates()) {
      expect(fromBinary(UpdateSchema, toBinary(UpdateSchema, u))).toEqual(u);
    }
  });
});

describe("DestinationProfile round trips", () => {
  it("binary", () => {
    const p = fullProfile();
    const back = fromBinary(DestinationProfileSchema, toBinary(DestinationProfileSchema, p));
    expect(equals(DestinationProfileSchema, back, p)).toBe(true);
    expect(back).toEqual(p);
  });

  it("proto JSON (with the API registry)", () => {
    const p = fullProfile();
    const opts = { registry: destinationApiRegistry };
    const json = toJson(DestinationProfileSchema, p, opts);
    expect(
      equals(DestinationProfileSchema, fromJson(DestinationProfileSchema, json, opts), p),
    ).toBe(true);
    expect(json).toMatchObject({
      fullyQualifiedName: "web.emojivoto.svc.cluster.local",
      retryBudget: { minRetriesPerSecond: 10, ttl: "10s" },
    });
    const route = (json as { routes: { timeout: string; condition: unknown }[] }).routes[0];
    expect(route?.timeout).toBe("0.200s");
    expect(route?.condition).toMatchObject({
      all: { matches: [{ method: { registered: "GET" } }, { path: { regex: "/api/list" } }, {}] },
    });
  });
});

describe("wire presence: set-but-empty values are kept, empty lists and maps are not", () => {
  it("WeightedAddr.weight is field 3", () => {
    // tag (3 << 3) | 0 = 0x18, varint 10000 = 0x90 0x4e.
    expect(toBinary(WeightedAddrSchema, create(WeightedAddrSchema, { weight: 10000 }))).toEqual(
      new Uint8Array([0x18, 0x90, 0x4e]),
    );
  });

  it("empty H2{} and Opaque{} oneof members are still emitted", () => {
    expect(
      toBinary(
        ProtocolHintSchema,
        create(ProtocolHintSchema, { protocol: { case: "h2", value: {} } }),
      ),
    ).toEqual(new Uint8Array([0x0a, 0x00]));
    expect(
      toBinary(
        ProtocolHintSchema,
        create(ProtocolHintSchema, { protocol: { case: "opaque", value: {} } }),
      ),
    ).toEqual(new Uint8Array([0x1a, 0x00]));
  });

  it("an empty-but-present ProtocolHint{} is a zero-length field, distinct from absent", () => {
    const present = create(WeightedAddrSchema, { protocolHint: {} });
    expect(toBinary(WeightedAddrSchema, present)).toEqual(new Uint8Array([0x32, 0x00]));
    expect(toBinary(WeightedAddrSchema, create(WeightedAddrSchema))).toEqual(new Uint8Array([]));
    expect(fromBinary(WeightedAddrSchema, new Uint8Array([0x32, 0x00])).protocolHint).toBeDefined();
  });

  it("empty maps and repeated fields are not encoded; an empty profile is zero bytes", () => {
    expect(
      toBinary(
        DestinationProfileSchema,
        create(DestinationProfileSchema, { routes: [], dstOverrides: [] }),
      ),
    ).toEqual(new Uint8Array([]));
  });

  it("0.0.0.0 inside a TcpAddress is still emitted", () => {
    const u = create(UpdateSchema, {
      update: { case: "remove", value: { addrs: [{ ip: ipAddressFromString("0.0.0.0") }] } },
    });
    // Update.remove(2) { AddrSet.addrs(1) { TcpAddress.ip(1) { ipv4 fixed32 0 } } }
    expect(toBinary(UpdateSchema, u)).toEqual(
      new Uint8Array([0x12, 0x09, 0x0a, 0x07, 0x0a, 0x05, 0x0d, 0, 0, 0, 0]),
    );
  });
});
