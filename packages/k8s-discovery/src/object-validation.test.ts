import { describe, expect, it } from "vitest";
import { describeObject, objectProblem } from "./object-validation.js";

const meta = { name: "web", namespace: "shop" };

describe("objectProblem", () => {
  it("accepts objects with unknown fields, absent optional fields and nulls where the API allows them", () => {
    expect(objectProblem("Pod", { metadata: meta })).toBeUndefined();
    expect(
      objectProblem("Service", {
        apiVersion: "v1",
        kind: "Service",
        metadata: { ...meta, labels: null, annotations: { a: "b" }, extra: [1] },
        spec: { ports: [{ port: 80, targetPort: "http", appProtocol: "h2" }], selector: null },
        status: { loadBalancer: {} },
      }),
    ).toBeUndefined();
    expect(
      objectProblem("EndpointSlice", {
        metadata: meta,
        addressType: "IPv4",
        endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: null }, hints: null }],
        ports: null,
      }),
    ).toBeUndefined();
    expect(objectProblem("ServiceProfile", { metadata: meta, spec: null })).toBeUndefined();
    expect(
      objectProblem("Node", { metadata: { name: "node-1" }, spec: "anything" }),
    ).toBeUndefined();
  });

  it("names the first field that is missing or of the wrong type", () => {
    expect(objectProblem("Pod", { metadata: { namespace: "shop" } })).toBe(
      "metadata.name: missing",
    );
    expect(objectProblem("Pod", { metadata: { name: "" } })).toMatch(/^metadata\.name: /);
    expect(objectProblem("Service", { metadata: meta, spec: { ports: [{ port: "80" }] } })).toBe(
      'spec.ports[0].port: expected number, got "80"',
    );
    expect(objectProblem("Service", { metadata: meta, spec: { ports: "db" } })).toBe(
      'spec.ports: expected Array, got "db"',
    );
    expect(
      objectProblem("EndpointSlice", {
        metadata: meta,
        addressType: "IPv4",
        endpoints: [{ addresses: 5 }],
      }),
    ).toBe("endpoints[0].addresses: expected Array, got 5");
    expect(objectProblem("Pod", { metadata: { ...meta, labels: { app: 1 } } })).toBe(
      "metadata.labels.app: expected string, got 1",
    );
    expect(objectProblem("Server", "not an object")).toBe(
      'the object: expected Object, got "not an object"',
    );
  });

  it("keeps a problem with a huge value short", () => {
    const problem = objectProblem("Pod", {
      metadata: { name: "x".repeat(100_000), labels: 5 },
      spec: 1,
    });
    expect(problem?.length).toBeLessThan(400);
  });
});

describe("describeObject", () => {
  it("reads namespace and name from anything", () => {
    expect(describeObject({ metadata: meta })).toBe("shop/web");
    expect(describeObject({ metadata: { name: "node-1" } })).toBe("node-1");
    expect(describeObject(null)).toBe("<no name>");
    expect(describeObject({ metadata: { name: 5 } })).toBe("<no name>");
  });
});
