import { describe, expect, it } from "vitest";
import { canonicalIp } from "./ip.js";

describe("canonicalIp", () => {
  it.each([
    ["10.0.0.1", "10.0.0.1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["::FFFF:0a01:0203", "10.1.2.3"],
    ["fe80::1%eth0", "fe80::1"],
    ["::", "::"],
  ])("writes %s as %s", (text, canonical) => {
    expect(canonicalIp(text)).toBe(canonical);
  });

  it.each(["web.shop.svc.cluster.local", "010.0.0.1", "10.0.0", "", "None", " 10.0.0.1"])(
    "is undefined for %j, which is not an IP",
    (text) => {
      expect(canonicalIp(text)).toBeUndefined();
    },
  );
});
