import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalIP, formatIP, parseIP } from "./ip.js";

describe("parseIP (Go net.ParseIP)", () => {
  it("reads dotted IPv4 as 4 bytes and IPv6 as 16, IPv4-mapped included", () => {
    expect([...(parseIP("10.1.2.3") as Uint8Array)]).toEqual([10, 1, 2, 3]);
    const mapped = parseIP("::ffff:10.1.2.3") as Uint8Array;
    expect(mapped).toHaveLength(16);
    expect([...mapped.subarray(10)]).toEqual([0xff, 0xff, 10, 1, 2, 3]);
  });

  it.each([
    ["010.0.0.1", 'bad IPv4 part "010"'],
    ["10.0.1", "IPv4 needs exactly four dot-separated parts"],
    ["10.0.0.256", "IPv4 part 256 exceeds 255"],
    ["1::2::3", "'::' may appear only once"],
    ["1:2:3:4:5:6:7:8::", "'::' must replace at least one group"],
    ["1:2:3", "IPv6 needs 8 groups, got 3"],
    ["fe80::1%eth0", 'bad IPv6 group "1%eth0"'],
    ["::ffff:1.2.3", "embedded IPv4 needs exactly four dot-separated parts"],
  ])("says why %j is not an IP", (text, reason) => {
    expect(parseIP(text)).toBe(reason);
  });

  it("accepts exactly what node accepts, zones aside", () => {
    const samples = [
      "0.0.0.0",
      "255.255.255.255",
      "1.2.3.04",
      "::",
      "::1",
      "1::",
      "1:2:3:4:5:6:7::",
      "::2:3:4:5:6:7:8",
      "64:ff9b::1.2.3.4",
      "1:2:3:4:5:6:1.2.3.4",
      "1:2:3:4:5:6:7:1.2.3.4",
      "12345::1",
      "g::1",
      ":1:2",
      "1:2:",
      "web.shop",
      "",
    ];
    for (const text of samples) {
      expect([text, typeof parseIP(text) !== "string"]).toEqual([text, isIP(text) !== 0]);
    }
  });
});

describe("canonicalIP and formatIP (Go net.IP.String)", () => {
  it.each([
    ["10.0.0.1", "10.0.0.1"],
    ["2001:0DB8:0:0:0:0:0:68", "2001:db8::68"],
    ["1:0:0:1:0:0:0:1", "1:0:0:1::1"],
    ["1:0:0:2:0:0:3:4", "1::2:0:0:3:4"],
    ["::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"],
    ["::ffff:a01:203", "10.1.2.3"],
    ["::1.2.3.4", "::102:304"],
  ])("prints %s as %s", (text, printed) => {
    expect(canonicalIP(text)).toBe(printed);
    expect(formatIP(parseIP(text) as Uint8Array)).toBe(printed);
  });

  it("is undefined for names and zones", () => {
    expect(canonicalIP("web.shop.svc.cluster.local")).toBeUndefined();
    expect(canonicalIP("fe80::1%eth0")).toBeUndefined();
  });
});
