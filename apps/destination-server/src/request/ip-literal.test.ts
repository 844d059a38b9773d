import { isIPv4 } from "node:net";
import { canonicalIp } from "@destination/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalIpLiteral } from "./ip-literal.js";

describe("canonicalIpLiteral (Go net.ParseIP)", () => {
  it("accepts dotted IPv4 without leading zeros", () => {
    expect(canonicalIpLiteral("10.0.0.1")).toBe("10.0.0.1");
    expect(canonicalIpLiteral("0.0.0.0")).toBe("0.0.0.0");
    expect(canonicalIpLiteral("255.255.255.255")).toBe("255.255.255.255");
  });

  it("rejects leading zeros, short forms and out-of-range octets", () => {
    for (const text of ["010.0.0.1", "10.0.0.01", "10.0.1", "10.0.0.256", "1.2.3.4.5", "1..2.3"]) {
      expect(canonicalIpLiteral(text)).toBeUndefined();
    }
  });

  it("compresses IPv6 as Go prints it", () => {
    expect(canonicalIpLiteral("2001:0db8:0000:0000:0000:0000:0000:0068")).toBe("2001:db8::68");
    expect(canonicalIpLiteral("::")).toBe("::");
    expect(canonicalIpLiteral("::1")).toBe("::1");
    expect(canonicalIpLiteral("1:0:0:1:0:0:0:1")).toBe("1:0:0:1::1");
    expect(canonicalIpLiteral("1:0:0:2:0:0:3:4")).toBe("1::2:0:0:3:4");
    expect(canonicalIpLiteral("1:2:3:4:5:6:7:0")).toBe("1:2:3:4:5:6:7:0");
    expect(canonicalIpLiteral("FE80::A")).toBe("fe80::a");
    // `::` may stand for a single group, at either end.
    expect(canonicalIpLiteral("::2:3:4:5:6:7:8")).toBe("0:2:3:4:5:6:7:8");
    expect(canonicalIpLiteral("1:2:3:4:5:6:7::")).toBe("1:2:3:4:5:6:7:0");
  });

  it("prints IPv4-mapped addresses as dotted IPv4 and keeps other embedded forms", () => {
    expect(canonicalIpLiteral("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(canonicalIpLiteral("::ffff:a01:203")).toBe("10.1.2.3");
    expect(canonicalIpLiteral("::1.2.3.4")).toBe("::102:304");
    expect(canonicalIpLiteral("64:ff9b::1.2.3.4")).toBe("64:ff9b::102:304");
  });

  it("rejects zones and malformed IPv6", () => {
    for (const text of [
      "fe80::1%eth0",
      "fe80::1%",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7::8",
      "1:2:3:4:5:6:7:8::",
      "::1.2.3.4:5",
      "1.2.3.4::",
      ":1::",
      "1:",
      "::ffff:01.2.3.4",
      "1:2:3:4:5:6:7:1.2.3.4",
      "[::1]",
    ]) {
      expect(canonicalIpLiteral(text), text).toBeUndefined();
    }
  });

  it("rejects names", () => {
    expect(canonicalIpLiteral("web.ns.svc.cluster.local")).toBeUndefined();
    expect(canonicalIpLiteral("localhost")).toBeUndefined();
    expect(canonicalIpLiteral("")).toBeUndefined();
  });

  it("agrees with Node on every canonical IPv4", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(canonicalIpLiteral(ip)).toBe(ip);
        expect(isIPv4(ip)).toBe(true);
      }),
    );
  });

  it("gives the same text as the cluster indexes' keys for any IPv6", () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const canonical = canonicalIpLiteral(ip);
        expect(canonical).toBe(canonicalIp(ip));
        expect(canonicalIpLiteral(canonical ?? "")).toBe(canonical);
      }),
    );
  });
});
