import { isIPv4, SocketAddress } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InvalidAddressError,
  ipAddressFromBytes,
  ipAddressFromString,
  ipAddressToBytes,
  ipAddressToString,
  tcpAddressFromString,
  tcpAddressToString,
} from "./address.js";
import { type IPAddress, IPAddressSchema } from "./gen/net_pb.js";

const v4 = (value: number) => create(IPAddressSchema, { ip: { case: "ipv4", value } });
const v6 = (first: bigint, last: bigint) =>
  create(IPAddressSchema, { ip: { case: "ipv6", value: { first, last } } });

describe("ipAddressFromString", () => {
  it.each([
    ["172.17.0.12", 2886795276],
    ["0.0.0.0", 0],
    ["255.255.255.255", 0xffffffff],
    ["10.0.0.1", 0x0a000001],
  ])("IPv4 %s → %i", (text, value) => {
    expect(ipAddressFromString(text)).toEqual(v4(value));
  });

  it.each([
    ["2001:db8::68", 0x20010db800000000n, 0x68n],
    ["::", 0n, 0n],
    ["::1", 0n, 1n],
    ["::ffff:1.2.3.4", 0n, 0x0000ffff01020304n],
    ["::FFFF:1.2.3.4", 0n, 0x0000ffff01020304n],
    ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 0xffffffffffffffffn, 0xffffffffffffffffn],
    ["1::", 0x0001000000000000n, 0n],
    ["1:2:3:4:5:6:7::", 0x0001000200030004n, 0x0005000600070000n],
    ["::2:3:4:5:6:7:8", 0x0000000200030004n, 0x0005000600070008n],
    ["1:2:3:4:5:6:1.2.3.4", 0x0001000200030004n, 0x0005000601020304n],
    ["FE80::1%eth0", 0xfe80000000000000n, 1n],
    ["2001:0DB8:0000:0000:0000:0000:0000:0068", 0x20010db800000000n, 0x68n],
  ])("IPv6 %s", (text, first, last) => {
    expect(ipAddressFromString(text)).toEqual(v6(first, last));
  });

  it.each([
    "",
    "web.ns.svc.cluster.local",
    "localhost",
    "1.2.3",
    "1.2.3.4.5",
    "256.0.0.1",
    "01.2.3.4",
    "1.2.3.-4",
    " 1.2.3.4",
    "1.2.3.4%eth0",
    ":::",
    "1::2::3",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8::",
    "::1:2:3:4:5:6:7:8",
    "12345::",
    "g::1",
    "fe80::1%",
    "1.2.3.4::",
    "::ffff:1.2.3.04",
    "::ffff:1.2.3",
    ":1::",
    "1::2:",
  ])("rejects %j with InvalidAddressError", (text) => {
    expect(() => ipAddressFromString(text)).toThrow(InvalidAddressError);
  });

  it("names the input and the reason in the error", () => {
    expect(() => ipAddressFromString("web.ns.svc.cluster.local")).toThrow(
      'invalid address "web.ns.svc.cluster.local": not an IP address',
    );
    try {
      ipAddressFromString("1::2::3");
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidAddressError);
      expect((err as InvalidAddressError).input).toBe("1::2::3");
      expect((err as InvalidAddressError).reason).toBe("'::' may appear only once");
    }
  });
});

describe("an address oneof member that is set but zero or empty is still encoded", () => {
  it("0.0.0.0 still encodes field 1 (fixed32 zero)", () => {
    // tag = (1 << 3) | wire type 5 (32-bit) = 0x0d, then four zero bytes.
    expect(toBinary(IPAddressSchema, ipAddressFromString("0.0.0.0"))).toEqual(
      new Uint8Array([0x0d, 0, 0, 0, 0]),
    );
  });

  it(":: encodes an empty-valued IPv6 sub-message with fixed64 zeros elided", () => {
    // tag = (2 << 3) | 2 = 0x12, length 0: the member is present even though it is empty.
    expect(toBinary(IPAddressSchema, ipAddressFromString("::"))).toEqual(
      new Uint8Array([0x12, 0x00]),
    );
  });

  it("172.17.0.12 encodes little-endian on the wire", () => {
    expect(toBinary(IPAddressSchema, ipAddressFromString("172.17.0.12"))).toEqual(
      new Uint8Array([0x0d, 0x0c, 0x00, 0x11, 0xac]),
    );
  });
});

describe("ipAddressToString", () => {
  it.each([
    ["172.17.0.12", "172.17.0.12"],
    ["0.0.0.0", "0.0.0.0"],
    ["255.255.255.255", "255.255.255.255"],
    ["2001:DB8:0:0:0:0:0:68", "2001:db8::68"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["::ffff:102:304", "::ffff:1.2.3.4"],
    ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    // RFC 5952, section 4.2.2: a single zero group is not compressed.
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    // RFC 5952, section 4.2.3: the longest run wins, and the first one on a tie.
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    // IPv4-compatible (deprecated) is plain hex; only IPv4-mapped keeps the dotted tail.
    ["::1.2.3.4", "::102:304"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["fe80::1%eth0", "fe80::1"],
  ])("%s → %s", (text, canonical) => {
    expect(ipAddressToString(ipAddressFromString(text))).toBe(canonical);
  });

  it("throws when no address family is set", () => {
    expect(() => ipAddressToString(create(IPAddressSchema))).toThrow(InvalidAddressError);
  });
});

describe("tcpAddressFromString / tcpAddressToString", () => {
  it.each([
    ["10.0.0.1:8080", v4(0x0a000001), 8080, "10.0.0.1:8080"],
    ["0.0.0.0:4143", v4(0), 4143, "0.0.0.0:4143"],
    ["[::]:4143", v6(0n, 0n), 4143, "[::]:4143"],
    ["[2001:db8::68]:80", v6(0x20010db800000000n, 0x68n), 80, "[2001:db8::68]:80"],
    ["[fe80::1%eth0]:9", v6(0xfe80000000000000n, 1n), 9, "[fe80::1]:9"],
    ["[::ffff:1.2.3.4]:0", v6(0n, 0x0000ffff01020304n), 0, "[::ffff:1.2.3.4]:0"],
    ["1.2.3.4:65535", v4(0x01020304), 65535, "1.2.3.4:65535"],
  ])("%s", (text, ip: IPAddress, port, back) => {
    const addr = tcpAddressFromString(text);
    expect(addr.ip).toEqual(ip);
    expect(addr.port).toBe(port);
    expect(tcpAddressToString(addr)).toBe(back);
  });

  it.each([
    "10.0.0.1",
    "10.0.0.1:",
    "10.0.0.1:65536",
    "10.0.0.1:-1",
    "10.0.0.1:http",
    "::1:80",
    "[::1]",
    "[::1]80",
    "[::1:80",
    "web.ns.svc.cluster.local:80",
    "[web]:80",
    ":80",
  ])("rejects %j", (text) => {
    expect(() => tcpAddressFromString(text)).toThrow(InvalidAddressError);
  });

  it("reports the whole input and the inner reason", () => {
    expect(() => tcpAddressFromString("[1::2::3]:80")).toThrow(
      `invalid address "[1::2::3]:80": '::' may appear only once`,
    );
  });
});

/** Node's own formatting (inet_ntop via SocketAddress). For IPv4-compatible addresses
 * (::a.b.c.d, deprecated by RFC 4291) inet_ntop keeps a dotted tail, while RFC 5952 and
 * WHATWG URL print hex, so use the URL serializer there. */
function nodeCanonical(bytes: Uint8Array, text: string): string {
  if (bytes.length === 4) return new SocketAddress({ address: text, family: "ipv4" }).address;
  const zeros96 = bytes.subarray(0, 12).every((b) => b === 0);
  if (zeros96) return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  return new SocketAddress({ address: text, family: "ipv6" }).address;
}

describe("properties", () => {
  const bytes = fc.oneof(
    fc.uint8Array({ minLength: 4, maxLength: 4 }),
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
    // Bias toward zero runs and the special prefixes, where compression rules bite.
    fc
      .array(fc.constantFrom(0, 0, 0, 1, 0xffff), { minLength: 8, maxLength: 8 })
      .map((words) => new Uint8Array(words.flatMap((w) => [w >> 8, w & 0xff]))),
    fc
      .uint8Array({ minLength: 4, maxLength: 4 })
      .map((v) => new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v])),
  );

  it("bytes → proto → text → proto is stable and text equals Node's canonical form", () => {
    fc.assert(
      fc.property(bytes, (raw) => {
        const proto = ipAddressFromBytes(raw);
        expect(ipAddressToBytes(proto)).toEqual(raw);
        const text = ipAddressToString(proto);
        expect(text).toBe(nodeCanonical(raw, text));
        const again = ipAddressFromString(text);
        expect(again).toEqual(proto);
        expect(ipAddressToString(again)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts exactly the IPv4 text that net.isIPv4 accepts", () => {
    const dotted = fc
      .array(fc.constantFrom("0", "1", "9", "00", "01", "25", "255", "256", "999", ".", "."), {
        maxLength: 9,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(dotted, (text) => {
        let ours = true;
        try {
          ipAddressFromString(text);
        } catch {
          ours = false;
        }
        expect(ours, JSON.stringify(text)).toBe(isIPv4(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("accepts exactly what Node's URL parser accepts as a bracketed IPv6 host", () => {
    const hexish = fc
      .array(fc.constantFrom("0", "1", "a", "F", "ffff", "12345", ":", ":", "::", ".", "1.2.3.4"), {
        maxLength: 12,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(hexish, (text) => {
        let nodeOk = true;
        try {
          new URL(`http://[${text}]/`);
        } catch {
          nodeOk = false;
        }
        let ours = true;
        try {
          ipBytesFromStringV6(text);
        } catch {
          ours = false;
        }
        expect(ours, JSON.stringify(text)).toBe(nodeOk);
      }),
      { numRuns: 3000 },
    );
  });
});

/** Parses text as IPv6 only (the URL test above is IPv6-specific). */
function ipBytesFromStringV6(text: string): void {
  const addr = ipAddressFromString(text);
  if (addr.ip.case !== "ipv6") throw new Error("not IPv6");
}
