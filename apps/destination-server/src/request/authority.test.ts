import { describe, expect, it } from "vitest";
import { AuthorityError, goAtoi, parseAuthority, parseServiceName } from "./authority.js";

const errorOf = (path: string) => {
  try {
    parseAuthority(path);
  } catch (err) {
    if (err instanceof AuthorityError) return err.message;
    throw err;
  }
  throw new Error(`expected ${path} to fail`);
};

describe("parseAuthority", () => {
  it("defaults to port 80 when there is no colon", () => {
    expect(parseAuthority("web.ns.svc.cluster.local")).toEqual({
      host: "web.ns.svc.cluster.local",
      port: 80,
    });
    expect(parseAuthority("")).toEqual({ host: "", port: 80 });
  });

  it("splits host and port, with brackets and zones", () => {
    expect(parseAuthority("web:8080")).toEqual({ host: "web", port: 8080 });
    expect(parseAuthority("[::1]:53")).toEqual({ host: "::1", port: 53 });
    expect(parseAuthority("[fe80::1%eth0]:53")).toEqual({ host: "fe80::1%eth0", port: 53 });
    expect(parseAuthority(":80")).toEqual({ host: "", port: 80 });
  });

  it("accepts a leading plus and leading zeros, 1..65535", () => {
    expect(parseAuthority("a:+80").port).toBe(80);
    expect(parseAuthority("a:0080").port).toBe(80);
    expect(parseAuthority("a:1").port).toBe(1);
    expect(parseAuthority("a:65535").port).toBe(65535);
  });

  it("rejects ports out of range with Go's texts", () => {
    expect(errorOf("a:0")).toBe("invalid port 0");
    expect(errorOf("a:65536")).toBe("invalid port 65536");
    expect(errorOf("a:-1")).toBe("invalid port -1");
    expect(errorOf("a:+0065536")).toBe("invalid port 65536");
  });

  it("rejects unparsable ports with strconv.Atoi's texts", () => {
    expect(errorOf("a:http")).toBe(
      'invalid port http: strconv.Atoi: parsing "http": invalid syntax',
    );
    expect(errorOf("a:")).toBe('invalid port : strconv.Atoi: parsing "": invalid syntax');
    expect(errorOf("a:+")).toBe('invalid port +: strconv.Atoi: parsing "+": invalid syntax');
    expect(errorOf("a:1_000")).toBe(
      'invalid port 1_000: strconv.Atoi: parsing "1_000": invalid syntax',
    );
    expect(errorOf("a:99999999999999999999")).toBe(
      'invalid port 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range',
    );
  });

  it("rejects what net.SplitHostPort rejects", () => {
    expect(errorOf("::1")).toBe("invalid destination: address ::1: too many colons in address");
    expect(errorOf("a:b:80")).toBe(
      "invalid destination: address a:b:80: too many colons in address",
    );
    expect(errorOf("[::1]")).toBe("invalid destination: address [::1]: missing port in address");
    expect(errorOf("[::1:80")).toBe("invalid destination: address [::1:80: missing ']' in address");
    expect(errorOf("[::1]x:80")).toBe(
      "invalid destination: address [::1]x:80: missing port in address",
    );
    expect(errorOf("[::1]::80")).toBe(
      "invalid destination: address [::1]::80: too many colons in address",
    );
    expect(errorOf("a[:80")).toBe("invalid destination: address a[:80: unexpected '[' in address");
    expect(errorOf("a]:80")).toBe("invalid destination: address a]:80: unexpected ']' in address");
  });
});

describe("goAtoi", () => {
  it("parses signed decimals into 64 bits", () => {
    expect(goAtoi("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(goAtoi("9223372036854775808")).toBe(
      'strconv.Atoi: parsing "9223372036854775808": value out of range',
    );
    expect(goAtoi(" 1")).toBe('strconv.Atoi: parsing " 1": invalid syntax');
  });
});

describe("parseServiceName", () => {
  it("reads service and namespace", () => {
    expect(parseServiceName("web.emojivoto.svc.cluster.local", "cluster.local")).toEqual({
      name: "web",
      namespace: "emojivoto",
      instance: "",
    });
  });

  it("reads an instance hostname", () => {
    expect(parseServiceName("db-0.db.data.svc.cluster.local", "cluster.local")).toEqual({
      instance: "db-0",
      name: "db",
      namespace: "data",
    });
  });

  it("honours the cluster domain", () => {
    expect(parseServiceName("a.b.svc.example.org", "example.org").name).toBe("a");
    expect(() => parseServiceName("a.b.svc.cluster.local", "example.org")).toThrow(
      "name a.b.svc.cluster.local does not match cluster domain example.org",
    );
  });

  it("rejects short names, trailing dots and case differences", () => {
    expect(() => parseServiceName("web.ns", "cluster.local")).toThrow(
      "name web.ns does not match cluster domain cluster.local",
    );
    expect(() => parseServiceName("web.ns.svc", "cluster.local")).toThrow("does not match");
    expect(() => parseServiceName("a.b.svc.cluster.local.", "cluster.local")).toThrow(
      "does not match",
    );
    expect(() => parseServiceName("a.b.SVC.cluster.local", "cluster.local")).toThrow(
      "does not match",
    );
  });

  it("rejects a wrong label count once the suffix matches", () => {
    expect(() => parseServiceName("ns.svc.cluster.local", "cluster.local")).toThrow(
      "invalid k8s service ns.svc.cluster.local",
    );
    expect(() => parseServiceName("a.b.c.d.svc.cluster.local", "cluster.local")).toThrow(
      "invalid k8s service a.b.c.d.svc.cluster.local",
    );
  });

  it("keeps empty labels as upstream does", () => {
    expect(parseServiceName(".ns.svc.cluster.local", "cluster.local")).toEqual({
      name: "",
      namespace: "ns",
      instance: "",
    });
  });
});
