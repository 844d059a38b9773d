import { describe, expect, it } from "vitest";
import { parseServiceName } from "./service-name.js";

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
