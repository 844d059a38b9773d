import { describe, expect, it } from "vitest";
import { completeAuthority } from "./authority.js";

describe("completeAuthority", () => {
  it.each([
    ["web-v2.ns.svc.cluster.local", "web-v2.ns.svc.cluster.local:8080"],
    ["web-v2.ns.svc.cluster.local:9090", "web-v2.ns.svc.cluster.local:9090"],
    // The port text is not validated.
    ["foo:bar", "foo:bar"],
    ["foo:", "foo:"],
    ["[::1]:80", "[::1]:80"],
    // Too many colons: an IPv6-looking host is bracketed.
    ["::1", "[::1]:8080"],
    ["a:b:c", "[a:b:c]:8080"],
    // Bad brackets do not split either.
    ["[::1]", "[[::1]]:8080"],
    ["[::1]x:80", "[[::1]x:80]:8080"],
    ["a]b:80", "[a]b:80]:8080"],
    ["a]b", "a]b:8080"],
    ["", ":8080"],
  ])("%j → %j", (authority, completed) => {
    expect(completeAuthority(authority, 8080)).toBe(completed);
  });
});
