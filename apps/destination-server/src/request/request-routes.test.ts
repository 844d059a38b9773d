import { isIPv4 } from "node:net";
import type { NamespacedName } from "@destination/core";
import { canonicalIp } from "@destination/core";
import { status as Status } from "@grpc/grpc-js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StatusCode } from "../grpc/status-error.js";
import { StatusError } from "../grpc/status-error.js";
import {
  canonicalIpLiteral,
  getServiceNotFound,
  profileServiceNotFound,
  routeGet,
  routeGetProfile,
} from "./request-routes.js";

const DOMAIN = "cluster.local";

function failure(run: () => unknown): { code: StatusCode; details: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof StatusError) return { code: err.code, details: err.details };
    throw err;
  }
  throw new Error("expected a StatusError");
}

describe("routeGet", () => {
  it("routes a service authority, with port 80 by default", () => {
    expect(routeGet("web.emojivoto.svc.cluster.local", DOMAIN)).toEqual({
      service: { namespace: "emojivoto", name: "web" },
      port: 80,
      instance: "",
    });
    expect(routeGet("db-0.db.data.svc.cluster.local:5432", DOMAIN)).toEqual({
      service: { namespace: "data", name: "db" },
      port: 5432,
      instance: "db-0",
    });
  });

  it("answers Invalid authority, capitalised as upstream's Get does, for bad authorities and names", () => {
    for (const path of ["web:0", "web:x", "::1", "web.ns:80", "a.b.svc.cluster.local.:80"]) {
      expect(failure(() => routeGet(path, DOMAIN))).toEqual({
        code: Status.INVALID_ARGUMENT,
        details: `Invalid authority: ${path}`,
      });
    }
  });

  it("refuses IP queries", () => {
    expect(failure(() => routeGet("10.1.2.3:80", DOMAIN))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "IP queries not supported by Get API: host=10.1.2.3",
    });
    expect(failure(() => routeGet("[::1]:80", DOMAIN))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "IP queries not supported by Get API: host=::1",
    });
  });

  it("treats IPv4 with leading zeros as a name", () => {
    expect(failure(() => routeGet("010.1.2.3:80", DOMAIN)).details).toBe(
      "Invalid authority: 010.1.2.3:80",
    );
  });
});

describe("routeGetProfile", () => {
  const none = () => [];

  it("routes names to the service flow with the host as FQN", () => {
    expect(routeGetProfile("web.emojivoto.svc.cluster.local:8080", DOMAIN, none)).toEqual({
      kind: "service",
      service: { namespace: "emojivoto", name: "web" },
      fqn: "web.emojivoto.svc.cluster.local",
      port: 8080,
    });
  });

  it("routes instance names to the endpoint flow", () => {
    expect(routeGetProfile("db-0.db.data.svc.cluster.local:5432", DOMAIN, none)).toEqual({
      kind: "instance",
      service: { namespace: "data", name: "db" },
      hostname: "db-0",
      port: 5432,
    });
  });

  it("routes a cluster IP to its service and any other IP to the endpoint flow", () => {
    const web: NamespacedName = { namespace: "emojivoto", name: "web" };
    const byIp = (ip: string) => (ip === "10.96.0.10" ? [web] : []);
    expect(routeGetProfile("10.96.0.10:80", DOMAIN, byIp)).toEqual({
      kind: "service",
      service: web,
      fqn: "web.emojivoto.svc.cluster.local",
      port: 80,
    });
    expect(routeGetProfile("[::ffff:10.1.0.5]:8080", DOMAIN, byIp)).toEqual({
      kind: "ip",
      ip: "10.1.0.5",
      port: 8080,
    });
  });

  it("fails on conflicting cluster IPs", () => {
    const two = () => [
      { namespace: "a", name: "x" },
      { namespace: "b", name: "y" },
    ];
    expect(failure(() => routeGetProfile("10.96.0.10:80", DOMAIN, two))).toEqual({
      code: Status.FAILED_PRECONDITION,
      details: "found 2 services with conflicting cluster IP 10.96.0.10",
    });
  });

  it("quotes authority errors with Go %q, lower-case invalid as upstream's GetProfile does", () => {
    expect(failure(() => routeGetProfile("web:0", DOMAIN, none))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: 'invalid authority: "web:0": "invalid port 0"',
    });
    expect(failure(() => routeGetProfile("a:b", DOMAIN, none)).details).toBe(
      'invalid authority: "a:b": "invalid port b: strconv.Atoi: parsing \\"b\\": invalid syntax"',
    );
    expect(failure(() => routeGetProfile("::1", DOMAIN, none)).details).toBe(
      'invalid authority: "::1": "invalid destination: address ::1: too many colons in address"',
    );
  });

  it("quotes service-name errors", () => {
    expect(failure(() => routeGetProfile("web.ns:80", DOMAIN, none))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details:
        'invalid service "web.ns": "name web.ns does not match cluster domain cluster.local"',
    });
    expect(failure(() => routeGetProfile("ns.svc.cluster.local", DOMAIN, none)).details).toBe(
      'invalid service "ns.svc.cluster.local": "invalid k8s service ns.svc.cluster.local"',
    );
  });
});

describe("lookup errors", () => {
  it("spells Get's and GetProfile's not-found differently", () => {
    const ref = { namespace: "ns", name: "web" };
    expect(getServiceNotFound(ref)).toMatchObject({
      code: Status.NOT_FOUND,
      details: "Service web.ns not found",
    });
    expect(profileServiceNotFound(ref)).toMatchObject({
      code: Status.UNKNOWN,
      details: 'service "web" not found',
    });
  });
});

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
