import { describe, expect, it } from "vitest";
import { parseServiceAuthority } from "./service-authority.js";

describe("parseServiceAuthority", () => {
  it.each([
    [
      "web-svc.emojivoto.svc.cluster.local:80",
      { namespace: "emojivoto", name: "web-svc", port: 80 },
    ],
    [
      "emoji-svc.emojivoto.svc.cluster.local:8080",
      { namespace: "emojivoto", name: "emoji-svc", port: 8080 },
    ],
    ["web.shop.svc.example.org", { namespace: "shop", name: "web", port: 80 }],
    ["web.shop.svc.cluster.local.:443", { namespace: "shop", name: "web", port: 443 }],
  ])("reads %s", (authority, expected) => {
    expect(parseServiceAuthority(authority)).toEqual(expected);
  });

  it.each([
    ["web-svc.emojivoto:80", /is not <service>/],
    ["web.shop.svc:80", /is not <service>/],
    ["10.96.0.10:80", /is not <service>/],
    ["Web.shop.svc.cluster.local", /is not <service>/],
    ["web.shop.svc.cluster.local:0", /port must be 1-65535/],
    ["web.shop.svc.cluster.local:70000", /port must be 1-65535/],
    ["[::1]:80", /is not <service>/],
    ["", /is not <service>/],
  ])("refuses %j", (authority, message) => {
    expect(parseServiceAuthority(authority)).toMatch(message);
  });
});
