import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { describeObject, objectProblem, schemaProblem } from "./object-validation.js";

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

  it("prints what it received the same way for every kind of value", () => {
    const port = (value: unknown) =>
      objectProblem("Service", { metadata: meta, spec: { ports: [{ port: value }] } });
    expect(port('a"b')).toBe('spec.ports[0].port: expected number, got "a"b"');
    expect(port(null)).toBe("spec.ports[0].port: expected number, got null");
    expect(port(Number.NaN)).toBe("spec.ports[0].port: expected number, got NaN");
    expect(port(5n)).toBe("spec.ports[0].port: expected number, got 5");
    expect(port(false)).toBe("spec.ports[0].port: expected number, got false");
    expect(port({})).toBe("spec.ports[0].port: expected number, got Object");
    expect(port([80])).toBe("spec.ports[0].port: expected number, got Array");
    expect(port(new Date(0))).toBe("spec.ports[0].port: expected number, got Date");
    expect(port(Object.create(null))).toBe("spec.ports[0].port: expected number, got null");
    expect(port(Symbol("s"))).toBe("spec.ports[0].port: expected number, got symbol");
    expect(port(undefined)).toBe("spec.ports[0].port: missing");
  });

  it("names a number that is not an integer, and what a port-or-name accepts", () => {
    const ports = (entry: Record<string, unknown>) =>
      objectProblem("Service", { metadata: meta, spec: { ports: [{ port: 80, ...entry }] } });
    expect(ports({ port: 1.5 })).toBe("spec.ports[0].port: Invalid integer: Received 1.5");
    expect(ports({ port: Number.POSITIVE_INFINITY })).toBe(
      "spec.ports[0].port: Invalid integer: Received Infinity",
    );
    expect(ports({ targetPort: 8080.5 })).toBe(
      "spec.ports[0].targetPort: Invalid integer: Received 8080.5",
    );
    expect(ports({ targetPort: true })).toBe(
      "spec.ports[0].targetPort: expected (number | string), got true",
    );
    expect(ports({ targetPort: Number.NaN })).toBe(
      "spec.ports[0].targetPort: expected (number | string), got NaN",
    );
    expect(ports({ targetPort: null, nodePort: null })).toBeUndefined();
    expect(objectProblem("Server", { metadata: meta, spec: { port: [] } })).toBe(
      "spec.port: expected (number | string), got Array",
    );
  });

  it("refuses an empty name, a null namespace and a map that is an array", () => {
    expect(objectProblem("Pod", { metadata: { name: "" } })).toBe(
      "metadata.name: Invalid length: Expected !0 but received 0",
    );
    expect(objectProblem("Pod", { metadata: { name: "web", namespace: null } })).toBe(
      "metadata.namespace: expected string, got null",
    );
    expect(objectProblem("Pod", { metadata: { ...meta, labels: ["a"] } })).toBe(
      "metadata.labels: expected Object, got Array",
    );
    expect(
      objectProblem("Server", {
        metadata: meta,
        spec: { podSelector: { matchLabels: { "app.kubernetes.io/name": 1 } } },
      }),
    ).toBe("spec.podSelector.matchLabels.app.kubernetes.io/name: expected string, got 1");
    expect(
      objectProblem("EndpointSlice", {
        metadata: meta,
        addressType: "IPv4",
        endpoints: [{ addresses: null }],
      }),
    ).toBe("endpoints[0].addresses: expected Array, got null");
  });

  it("reads a map's own keys only, and not __proto__, prototype or constructor", () => {
    const inherited = Object.assign(Object.create({ inherited: 1 }), { app: "web" });
    expect(objectProblem("Pod", { metadata: { ...meta, labels: inherited } })).toBeUndefined();
    expect(
      objectProblem("Pod", { metadata: { ...meta, labels: { constructor: 1, prototype: 2 } } }),
    ).toBeUndefined();
    expect(
      objectProblem("Pod", { metadata: { ...meta, labels: JSON.parse('{"__proto__": 1}') } }),
    ).toBeUndefined();
    expect(objectProblem("Pod", { metadata: { ...meta, labels: { 0: 1 } } })).toBe(
      "metadata.labels.0: expected string, got 1",
    );
  });

  it("takes any object for an object, arrays included, and a hole for a missing item", () => {
    expect(objectProblem("Pod", [])).toBe("metadata: missing");
    expect(objectProblem("Pod", { metadata: meta, spec: [] })).toBeUndefined();
    expect(objectProblem("Pod", null)).toBe("the object: expected Object, got null");
    expect(objectProblem("Pod", undefined)).toBe("the object: missing");
    expect(
      objectProblem("EndpointSlice", {
        metadata: meta,
        addressType: "IPv4",
        // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
        endpoints: [{ addresses: [, "10.0.0.1"] }],
      }),
    ).toBe("endpoints[0].addresses[0]: missing");
  });

  it("reports the first problem in the order the schema lists its fields", () => {
    expect(objectProblem("Pod", { status: 5, spec: 5, metadata: meta })).toBe(
      "spec: expected Object, got 5",
    );
    expect(objectProblem("Pod", { spec: 5, metadata: { labels: 5 } })).toBe(
      "metadata.name: missing",
    );
  });

  it("cuts a long message to 160 characters and leaves the path whole", () => {
    const problem = objectProblem("Service", {
      metadata: meta,
      spec: { ports: [{ port: "x".repeat(300) }] },
    });
    const message = `expected number, got "${"x".repeat(300)}"`.slice(0, 160);
    expect(problem).toBe(`spec.ports[0].port: ${message}…`);
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

const notANumber = (value: unknown) => schemaProblem(v.number(), value);

describe("schemaProblem", () => {
  it("returns undefined for a passing value", () => {
    expect(schemaProblem(v.object({ port: v.number() }), { port: 80, extra: "x" })).toBeUndefined();
  });

  it("quotes strings without escaping, prints numbers bare and objects by constructor", () => {
    expect(notANumber('say "hi"\n')).toBe('the object: expected number, got "say "hi"\n"');
    expect(schemaProblem(v.string(), -0)).toBe("the object: expected string, got 0");
    expect(schemaProblem(v.string(), 1e21)).toBe("the object: expected string, got 1e+21");
    expect(notANumber(7n)).toBe("the object: expected number, got 7");
    expect(notANumber(true)).toBe("the object: expected number, got true");
    expect(notANumber(null)).toBe("the object: expected number, got null");
    expect(notANumber([])).toBe("the object: expected number, got Array");
    expect(notANumber(new Map())).toBe("the object: expected number, got Map");
    expect(notANumber(Object.create(null))).toBe("the object: expected number, got null");
    expect(notANumber(new (class Route {})())).toBe("the object: expected number, got Route");
    expect(notANumber(() => 1)).toBe("the object: expected number, got Function");
    expect(notANumber(Symbol("s"))).toBe("the object: expected number, got symbol");
  });

  it("joins keys from the root, with indexes in brackets", () => {
    const schema = v.object({ spec: v.object({ ports: v.array(v.object({ port: v.number() })) }) });
    expect(schemaProblem(schema, { spec: { ports: [{ port: "80" }] } })).toBe(
      'spec.ports[0].port: expected number, got "80"',
    );
  });

  it("calls the root the object and an absent value missing", () => {
    expect(schemaProblem(v.object({}), undefined)).toBe("the object: missing");
    expect(schemaProblem(v.object({ name: v.string() }), {})).toBe("name: missing");
  });

  it("keeps the message of a value of the right type that fails a further test", () => {
    const even = v.pipe(
      v.number(),
      v.check((n) => n % 2 === 0, "odd"),
    );
    expect(schemaProblem(even, 3)).toBe("the object: odd");
    expect(schemaProblem(even, "3")).toBe('the object: expected number, got "3"');
  });

  it("cuts the message, not the path, after 160 characters", () => {
    const path = "p".repeat(200);
    const long = v.object({ [path]: v.custom(() => false, "m".repeat(161)) });
    expect(schemaProblem(long, { [path]: 1 })).toBe(`${path}: ${"m".repeat(160)}…`);
    const exact = v.custom(() => false, "m".repeat(160));
    expect(schemaProblem(exact, 1)).toBe(`the object: ${"m".repeat(160)}`);
  });
});
