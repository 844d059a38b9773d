import { describe, expect, it } from "vitest";
import { joinHostPort, splitHostPort } from "./host-port.js";

describe("splitHostPort", () => {
  it("keeps an empty host", () => {
    expect(splitHostPort(":9996")).toEqual({ host: "", port: "9996" });
  });

  it("unbrackets the host and leaves the port text unchecked", () => {
    expect(splitHostPort("web:8080")).toEqual({ host: "web", port: "8080" });
    expect(splitHostPort("[fe80::1%eth0]:53")).toEqual({ host: "fe80::1%eth0", port: "53" });
    expect(splitHostPort("foo:")).toEqual({ host: "foo", port: "" });
    expect(splitHostPort("foo:bar")).toEqual({ host: "foo", port: "bar" });
  });

  it.each([
    ["web", "address web: missing port in address"],
    ["::1", "address ::1: too many colons in address"],
    ["[::1]", "address [::1]: missing port in address"],
    ["[::1:80", "address [::1:80: missing ']' in address"],
    ["[::1]x:80", "address [::1]x:80: missing port in address"],
    ["[::1]::80", "address [::1]::80: too many colons in address"],
    ["a[:80", "address a[:80: unexpected '[' in address"],
    ["a]:80", "address a]:80: unexpected ']' in address"],
  ])("rejects %j with Go's text", (hostport, error) => {
    expect(splitHostPort(hostport)).toBe(error);
  });
});

describe("joinHostPort", () => {
  it("brackets a host with a colon", () => {
    expect(joinHostPort("web", 80)).toBe("web:80");
    expect(joinHostPort("::", 8086)).toBe("[::]:8086");
    expect(joinHostPort("", 0)).toBe(":0");
    expect(joinHostPort("web.shop", "http")).toBe("web.shop:http");
  });
});
