// What `encodeUpdate` and the service's serializer put on the wire, read back
// with protobuf-es `fromBinary`, on random messages that set, leave out or zero every field of
// every message an Update holds, with text of every UTF-8 width and of lengths that need
// multi-byte length prefixes, and unknown fields anywhere.

import {
  create,
  equals,
  fromBinary,
  type Message,
  toBinary,
  type UnknownField,
} from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { type Rng, seededRandom } from "../test/support/fixtures.js";
import { durationFromMs } from "./duration.js";
import {
  AuthorityOverrideSchema,
  type Http2ClientParams,
  Http2ClientParamsSchema,
  ProtocolHint_H2Schema,
  ProtocolHint_OpaqueSchema,
  ProtocolHint_OpaqueTransportSchema,
  ProtocolHintSchema,
  TlsIdentity_DnsLikeIdentitySchema,
  TlsIdentity_UriLikeIdentitySchema,
  TlsIdentitySchema,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "./gen/destination_pb.js";
import { MetadataSchema } from "./gen/meta_pb.js";
import { IPAddressSchema, IPv6Schema, type TcpAddress, TcpAddressSchema } from "./gen/net_pb.js";
import { DestinationService, encodeUpdate } from "./service.js";

const TEXTS = [
  "",
  "a",
  "pod-0",
  "zone-a",
  "10",
  "k8s_job",
  "web.emojivoto.serviceaccount.identity.linkerd.cluster.local",
  "y".repeat(24),
  "y".repeat(25),
  "ünïcödé",
  "😀",
  "a😀b",
  "日本語のラベル",
  `${"a".repeat(30)}é`,
  `${"a".repeat(20)}é`,
  "é".repeat(24),
  "é".repeat(25),
  // Lengths that need two- and three-byte varints.
  "x".repeat(127),
  "x".repeat(128),
  "é".repeat(64),
  "z".repeat(200),
  "q".repeat(16_384),
  "😀".repeat(5_000),
  `${"w".repeat(20_000)}ü`,
];

function text(r: Rng): string {
  if (r.chance(0.3)) return `t-${r.int(1_000_000)}`;
  // The longest ones are rarer, to keep the test quick.
  const t = r.pick(TEXTS);
  return t.length > 1_000 && r.chance(0.97) ? "short" : t;
}

function labels(r: Rng): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = r.chance(0.1) ? 40 : r.int(12); i > 0; i--) out[text(r)] = text(r);
  return out;
}

// Values around the varint length boundaries, and the extremes.
const UINT32S = [0, 1, 127, 128, 16_383, 16_384, 65_535, 0x1fffff, 0x200000, 0xfffffff, 0x10000000];
const UINT64S = [0n, 1n, 0xffff_ffff_ffff_ffffn, 0x8000_0000_0000_0000n, 0x2001_0db8_0000_0000n];

function uint32(r: Rng): number {
  return r.chance(0.7) ? r.pick([...UINT32S, 0x80000000, 0xffffffff]) : r.int(0x100000000);
}

function uint64(r: Rng): bigint {
  return r.chance(0.5)
    ? r.pick(UINT64S)
    : (BigInt(r.int(0x100000000)) << 32n) | BigInt(r.int(0x100000000));
}

function unknownField(r: Rng): UnknownField {
  // Field numbers whose tags take one to five bytes.
  const no = r.pick([15, 16, 99, 2_047, 2_048, 536_870_911]);
  switch (r.int(4)) {
    case 0:
      return { no, wireType: WireType.Varint, data: new Uint8Array([0xff, 0xff, 0xff, 0x0f]) };
    case 1:
      return { no, wireType: WireType.Bit64, data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]) };
    case 2:
      return { no, wireType: WireType.LengthDelimited, data: new Uint8Array([2, 0xc3, 0xa9]) };
    default:
      return { no, wireType: WireType.Bit32, data: new Uint8Array([9, 8, 7, 6]) };
  }
}

/** Gives a message unknown fields, now and then. */
function withUnknown<T extends Message>(r: Rng, message: T): T {
  if (r.chance(0.08)) {
    message.$unknown = Array.from({ length: 1 + r.int(3) }, () => unknownField(r));
  }
  return message;
}

function tcpAddress(r: Rng): TcpAddress {
  const ip = r.chance(0.1)
    ? undefined
    : r.chance(0.6)
      ? create(IPAddressSchema, { ip: { case: "ipv4", value: uint32(r) } })
      : create(IPAddressSchema, {
          ip: {
            case: "ipv6",
            value: withUnknown(r, create(IPv6Schema, { first: uint64(r), last: uint64(r) })),
          },
        });
  if (ip !== undefined) withUnknown(r, ip);
  return withUnknown(r, create(TcpAddressSchema, { ip, port: r.chance(0.2) ? 0 : uint32(r) }));
}

const sharedHttp2: Http2ClientParams = create(Http2ClientParamsSchema, {
  flowControl: { initialConnectionWindowSize: 65_535, adaptiveFlowControl: true },
  keepAlive: { interval: durationFromMs(10_000), timeout: durationFromMs(3_000), whileIdle: true },
  internals: { maxFrameSize: 16_384 },
});

function weightedAddr(r: Rng): WeightedAddr {
  const wa = create(WeightedAddrSchema, {
    addr: r.chance(0.95) ? tcpAddress(r) : undefined,
    weight: r.chance(0.2) ? 0 : uint32(r),
    metricLabels: labels(r),
  });
  if (r.chance(0.7)) {
    const dns = withUnknown(r, create(TlsIdentity_DnsLikeIdentitySchema, { name: text(r) }));
    wa.tlsIdentity = withUnknown(
      r,
      create(TlsIdentitySchema, {
        strategy: r.chance(0.2)
          ? { case: undefined }
          : r.chance(0.7)
            ? { case: "dnsLikeIdentity", value: dns }
            : {
                case: "uriLikeIdentity",
                value: withUnknown(r, create(TlsIdentity_UriLikeIdentitySchema, { uri: text(r) })),
              },
        serverName: r.chance(0.5) ? (r.chance(0.5) ? dns : { name: text(r) }) : undefined,
      }),
    );
  }
  if (r.chance(0.7)) {
    const h2 = withUnknown(r, create(ProtocolHint_H2Schema));
    const opaque = withUnknown(r, create(ProtocolHint_OpaqueSchema));
    wa.protocolHint = withUnknown(
      r,
      create(ProtocolHintSchema, {
        protocol: r.pick([
          { case: undefined },
          { case: "h2", value: h2 },
          { case: "opaque", value: opaque },
        ] as const),
        opaqueTransport: r.chance(0.5)
          ? withUnknown(
              r,
              create(ProtocolHint_OpaqueTransportSchema, {
                inboundPort: r.chance(0.2) ? 0 : r.pick([4143, uint32(r)]),
              }),
            )
          : undefined,
      }),
    );
  }
  if (r.chance(0.3)) {
    wa.authorityOverride = withUnknown(
      r,
      create(AuthorityOverrideSchema, { authorityOverride: text(r) }),
    );
  }
  if (r.chance(0.6)) {
    wa.http2 = r.chance(0.7)
      ? sharedHttp2
      : create(Http2ClientParamsSchema, {
          flowControl: r.chance(0.5) ? { initialStreamWindowSize: uint32(r) } : undefined,
          internals: r.chance(0.5) ? { maxConcurrentResetStreams: uint32(r) } : undefined,
        });
  }
  if (r.chance(0.1)) {
    wa.resourceRef = create(MetadataSchema, {
      kind: { case: "resource", value: { group: text(r), kind: text(r), name: text(r) } },
    });
  }
  return withUnknown(r, wa);
}

function update(r: Rng): Update {
  const kind = r.int(10);
  let u: Update;
  if (kind < 6) {
    u = create(UpdateSchema, {
      update: {
        case: "add",
        value: {
          addrs: Array.from({ length: r.int(12) }, () => weightedAddr(r)),
          metricLabels: labels(r),
        },
      },
    });
    withUnknown(r, u.update.value as Message);
  } else if (kind < 8) {
    u = create(UpdateSchema, {
      update: {
        case: "remove",
        value: { addrs: Array.from({ length: r.int(12) }, () => tcpAddress(r)) },
      },
    });
    withUnknown(r, u.update.value as Message);
  } else if (kind < 9) {
    u = create(UpdateSchema, {
      update: { case: "noEndpoints", value: { exists: r.chance(0.5) } },
    });
    withUnknown(r, u.update.value as Message);
  } else {
    u = create(UpdateSchema);
  }
  return withUnknown(r, u);
}

/** The bytes of a Buffer as a plain Uint8Array, to compare with toBinary's. */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** What encoding gives: the bytes, or the error message. */
function outcome(encode: () => Uint8Array): Uint8Array | string {
  try {
    return plain(encode());
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Encoded, then decoded: what a client reads. */
function readBack(bytes: Uint8Array): Update {
  return fromBinary(UpdateSchema, bytes);
}

describe("encodeUpdate", () => {
  it("encodes every Update so that fromBinary reads it back whole", () => {
    const r = seededRandom(20261201);
    for (let i = 0; i < 2_000; i++) {
      const u = update(r);
      const bytes = encodeUpdate(u);
      const decoded = readBack(bytes);
      expect(equals(UpdateSchema, decoded, u), `message ${i}`).toBe(true);
      // Unknown fields are carried through too: what is read back encodes to the same bytes.
      expect(Buffer.from(toBinary(UpdateSchema, decoded)).equals(bytes), `message ${i}`).toBe(true);
    }
  });

  it("writes every kind of text in UTF-8", () => {
    const addrs = TEXTS.map((t) =>
      create(WeightedAddrSchema, {
        metricLabels: { [t]: t, k: t },
        tlsIdentity: { strategy: { case: "dnsLikeIdentity", value: { name: t } } },
        authorityOverride: { authorityOverride: t },
      }),
    );
    const u = create(UpdateSchema, {
      update: { case: "add", value: { addrs, metricLabels: { [TEXTS.join()]: TEXTS.join() } } },
    });
    const bytes = encodeUpdate(u);
    expect(equals(UpdateSchema, readBack(bytes), u)).toBe(true);
    // The longest text, once as a key and once as a value of the set's labels.
    expect(bytes.includes(Buffer.from(TEXTS.join(), "utf8"))).toBe(true);
  });

  it("replaces a lone surrogate with U+FFFD, as every UTF-8 encoder does", () => {
    const u = create(UpdateSchema, {
      update: { case: "add", value: { addrs: [], metricLabels: { k: "a\udc00b" } } },
    });
    const decoded = readBack(encodeUpdate(u));
    expect(decoded.update.case === "add" && decoded.update.value.metricLabels.k).toBe("a\ufffdb");
  });

  it("encodes a large add (length prefixes of several bytes)", () => {
    const r = seededRandom(7);
    const u = create(UpdateSchema, {
      update: {
        case: "add",
        value: { addrs: Array.from({ length: 300 }, () => weightedAddr(r)), metricLabels: {} },
      },
    });
    const bytes = encodeUpdate(u);
    expect(bytes.length).toBeGreaterThan(0x3fff);
    expect(equals(UpdateSchema, readBack(bytes), u)).toBe(true);
  });

  it("returns bytes that later calls leave alone", () => {
    const r = seededRandom(11);
    const updates = Array.from({ length: 50 }, () => update(r));
    const encoded = updates.map((u) => encodeUpdate(u));
    updates.forEach((u, i) => {
      expect(equals(UpdateSchema, readBack(encoded[i] as Buffer), u)).toBe(true);
    });
  });

  it("backs the service's serializer, which passes encoded bytes through", () => {
    const u = update(seededRandom(1));
    const bytes = encodeUpdate(u);
    const serialize = DestinationService.get.responseSerialize;
    expect(serialize(bytes)).toBe(bytes);
    expect(serialize(plain(bytes)).equals(bytes)).toBe(true);
    expect(serialize(u).equals(bytes)).toBe(true);
  });

  it("refuses values out of range with an error, and encodes the next Update", () => {
    const bad = create(UpdateSchema, {
      update: { case: "add", value: { addrs: [{ weight: -1 }], metricLabels: {} } },
    });
    expect(() => encodeUpdate(bad)).toThrow(/weight/);
    const u = update(seededRandom(3));
    expect(equals(UpdateSchema, readBack(encodeUpdate(u)), u)).toBe(true);
  });

  it("refuses a message that is not an Update", () => {
    const foreign = create(TcpAddressSchema) as unknown as Update;
    expect(outcome(() => encodeUpdate(foreign))).toEqual(
      outcome(() => toBinary(UpdateSchema, foreign)),
    );
  });
});
