// The dedicated Update encoder against protobuf-es `toBinary`, byte for byte, on random messages
// that set, leave out or zero every field of every message an Update holds.

import { create, toBinary } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { durationFromMs } from "./duration.js";
import {
  AuthorityOverrideSchema,
  type Http2ClientParams,
  Http2ClientParamsSchema,
  ProtocolHintSchema,
  TlsIdentitySchema,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  WeightedAddrSchema,
} from "./gen/destination_pb.js";
import { MetadataSchema } from "./gen/meta_pb.js";
import { IPAddressSchema, IPv6Schema, type TcpAddress, TcpAddressSchema } from "./gen/net_pb.js";
import { encodeUpdate } from "./service.js";
import { updateToBinary } from "./update-binary.js";

/** A small seeded PRNG (mulberry32), so that a failure reproduces. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const chance = (p: number) => next() < p;
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  return { int, chance, pick };
}

type Rng = ReturnType<typeof random>;

const TEXTS = ["", "a", "pod-0", "zone-a", "ünïcödé", "😀", "10", "1", "x".repeat(200), "k8s_job"];

function text(r: Rng): string {
  return r.chance(0.7) ? r.pick(TEXTS) : `t-${r.int(1_000_000)}`;
}

function labels(r: Rng): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = r.int(6); i > 0; i--) out[text(r)] = text(r);
  return out;
}

function uint32(r: Rng): number {
  return r.pick([0, 1, 127, 128, 10_000, 65_535, 0xffffffff, r.int(0x100000000)]);
}

function tcpAddress(r: Rng): TcpAddress {
  const ip = r.chance(0.1)
    ? undefined
    : r.chance(0.6)
      ? create(IPAddressSchema, { ip: { case: "ipv4", value: uint32(r) } })
      : create(IPAddressSchema, {
          ip: {
            case: "ipv6",
            value: create(IPv6Schema, {
              first: r.chance(0.3) ? 0n : BigInt(r.int(0x7fffffff)) << 32n,
              last: r.chance(0.3) ? 0n : BigInt(r.int(0x7fffffff)),
            }),
          },
        });
  return create(TcpAddressSchema, { ip, port: r.chance(0.2) ? 0 : r.int(65_536) });
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
    const dns = { name: text(r) };
    wa.tlsIdentity = create(TlsIdentitySchema, {
      strategy: r.chance(0.2)
        ? { case: undefined }
        : r.chance(0.7)
          ? { case: "dnsLikeIdentity", value: dns }
          : { case: "uriLikeIdentity", value: { uri: text(r) } },
      serverName: r.chance(0.5) ? (r.chance(0.5) ? dns : { name: text(r) }) : undefined,
    });
  }
  if (r.chance(0.7)) {
    wa.protocolHint = create(ProtocolHintSchema, {
      protocol: r.pick([
        { case: undefined },
        { case: "h2", value: {} },
        { case: "opaque", value: {} },
      ] as const),
      opaqueTransport: r.chance(0.5) ? { inboundPort: r.chance(0.2) ? 0 : 4143 } : undefined,
    });
  }
  if (r.chance(0.3)) {
    wa.authorityOverride = create(AuthorityOverrideSchema, {
      authorityOverride: text(r),
    });
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
  if (r.chance(0.05)) {
    wa.$unknown = [{ no: 99, wireType: WireType.Varint, data: new Uint8Array([0x2a]) }];
  }
  return wa;
}

function update(r: Rng): Update {
  const kind = r.int(10);
  if (kind < 6) {
    return create(UpdateSchema, {
      update: {
        case: "add",
        value: {
          addrs: Array.from({ length: r.int(12) }, () => weightedAddr(r)),
          metricLabels: labels(r),
        },
      },
    });
  }
  if (kind < 8) {
    return create(UpdateSchema, {
      update: {
        case: "remove",
        value: { addrs: Array.from({ length: r.int(12) }, () => tcpAddress(r)) },
      },
    });
  }
  if (kind < 9) {
    return create(UpdateSchema, {
      update: { case: "noEndpoints", value: { exists: r.chance(0.5) } },
    });
  }
  const empty = create(UpdateSchema);
  if (r.chance(0.5)) {
    empty.$unknown = [{ no: 7, wireType: WireType.LengthDelimited, data: new Uint8Array([1, 2]) }];
  }
  return empty;
}

describe("updateToBinary", () => {
  it("writes exactly what toBinary writes", () => {
    const r = random(20261201);
    for (let i = 0; i < 1_000; i++) {
      const u = update(r);
      expect(updateToBinary(u), `message ${i}`).toEqual(toBinary(UpdateSchema, u));
    }
  });

  it("encodes a large add as toBinary does (length prefixes of several bytes)", () => {
    const r = random(7);
    const u = create(UpdateSchema, {
      update: {
        case: "add",
        value: { addrs: Array.from({ length: 300 }, () => weightedAddr(r)), metricLabels: {} },
      },
    });
    expect(updateToBinary(u)).toEqual(toBinary(UpdateSchema, u));
  });

  it("backs encodeUpdate, which passes bytes through", () => {
    const u = update(random(1));
    expect(new Uint8Array(encodeUpdate(u))).toEqual(toBinary(UpdateSchema, u));
  });

  it("encodes correctly after refusing a value", () => {
    const bad = create(UpdateSchema, {
      update: { case: "add", value: { addrs: [{ weight: -1 }], metricLabels: {} } },
    });
    expect(() => updateToBinary(bad)).toThrow();
    const u = update(random(3));
    expect(updateToBinary(u)).toEqual(toBinary(UpdateSchema, u));
  });

  it("refuses a message that is not an Update, as toBinary does", () => {
    const foreign = create(TcpAddressSchema) as unknown as Update;
    expect(() => updateToBinary(foreign)).toThrow();
  });
});
