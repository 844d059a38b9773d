import type { KubeObject, ManagedFieldsEntry, Pod, Service } from "@destination/core";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { informerLagSeconds } from "../informer-lag.js";
import { schemaProblem } from "../object-validation.js";
import {
  nonEmptyString,
  optionalList,
  optionalPortOrName,
  optionalString,
  port,
  projectObject,
  stringMap,
} from "./object-schemas.js";

describe("field schemas", () => {
  it("pass values of their type and name what they expect and what they got", () => {
    const schema = v.object({
      name: nonEmptyString,
      ports: v.array(v.object({ port, name: optionalString })),
      labels: v.nullish(stringMap),
    });
    const value = { name: "a", ports: [{ port: 1 }, { port: 2, name: null }], labels: { a: "b" } };
    expect(schemaProblem(schema, value)).toBeUndefined();
    expect(schemaProblem(port, Number.NaN)).toBe("the object: expected number, got NaN");
    expect(schemaProblem(port, -0.5)).toBe("the object: Invalid integer: Received -0.5");
    expect(schemaProblem(nonEmptyString, "")).toBe(
      "the object: Invalid length: Expected !0 but received 0",
    );
    expect(schemaProblem(nonEmptyString, undefined)).toBe("the object: missing");
  });

  it("let optional take undefined only and nullish take null too", () => {
    expect(schemaProblem(v.optional(v.string()), undefined)).toBeUndefined();
    expect(schemaProblem(v.optional(v.string()), null)).toBe(
      "the object: expected string, got null",
    );
    expect(schemaProblem(optionalString, null)).toBeUndefined();
    expect(schemaProblem(optionalList(v.string()), null)).toBeUndefined();
    expect(optionalString.expects).toBe("(string | null | undefined)");
  });

  it("put indexes and keys into the path", () => {
    const schema = v.object({ a: v.array(v.object({ b: stringMap })) });
    expect(schemaProblem(schema, { a: [{ b: {} }, { b: { "c.d": 1 } }] })).toBe(
      "a[1].b.c.d: expected string, got 1",
    );
    expect(schemaProblem(schema, { a: [{}, null] })).toBe("a[0].b: missing");
    expect(schemaProblem(schema, { a: [{ b: {} }, null] })).toBe("a[1]: expected Object, got null");
  });

  it("read an object's fields through its prototype chain, arrays included", () => {
    const schema = v.object({ name: v.string() });
    expect(schemaProblem(schema, Object.create({ name: "inherited" }))).toBeUndefined();
    expect(schemaProblem(schema, Object.assign([], { name: "on an array" }))).toBeUndefined();
  });

  it("refuse a map that is an array or not an object, and read only its own keys", () => {
    expect(schemaProblem(stringMap, ["a"])).toBe("the object: expected Object, got Array");
    expect(schemaProblem(stringMap, 5)).toBe("the object: expected Object, got 5");
    expect(schemaProblem(stringMap, Object.create({ inherited: 1 }))).toBeUndefined();
    expect(schemaProblem(stringMap, { constructor: 1, prototype: 2 })).toBeUndefined();
    expect(schemaProblem(stringMap, JSON.parse('{"__proto__": 1}'))).toBeUndefined();
  });

  it("let a port-or-name name one refinement, one failing option, or what it expects", () => {
    const portOrName = (value: unknown) => schemaProblem(optionalPortOrName, value);
    expect(portOrName(80)).toBeUndefined();
    expect(portOrName("http")).toBeUndefined();
    expect(portOrName(null)).toBeUndefined();
    expect(portOrName(1.5)).toBe("the object: Invalid integer: Received 1.5");
    expect(portOrName([])).toBe("the object: expected (number | string), got Array");
    expect(schemaProblem(v.union([port]), "x")).toBe('the object: expected number, got "x"');
    const never = v.pipe(
      v.number(),
      v.check(() => false, "never"),
    );
    expect(schemaProblem(v.union([port, never]), 1.5)).toBe("the object: expected number, got 1.5");
    // A field's refinement inside an object does not make the object a refinement.
    expect(schemaProblem(v.union([v.object({ n: never }), v.string()]), { n: 3 })).toBe(
      "the object: expected (Object | string), got Object",
    );
  });
});

const managedFields = [
  { manager: "kubelet", operation: "Update", time: "2026-01-01T00:00:05Z", fieldsV1: { x: {} } },
  { manager: "kubectl", operation: "Apply", time: "2026-01-01T00:00:09Z", fieldsV1: { y: {} } },
  { manager: "ctrl", operation: "Update", time: "2026-01-01T00:00:07Z", fieldsV1: { z: {} } },
] as unknown as ManagedFieldsEntry[];

describe("projectObject", () => {
  it("keeps of managedFields only the latest Update time, which informer lag reads", () => {
    const svc: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "shop", managedFields },
    };
    const projected = projectObject(svc);
    expect(projected.metadata.managedFields).toEqual([
      { operation: "Update", time: "2026-01-01T00:00:07Z" },
    ]);
    const older = {
      ...svc,
      metadata: { ...svc.metadata, managedFields: managedFields.slice(0, 1) },
    };
    expect(
      informerLagSeconds(projectObject(older), projected, Date.parse("2026-01-01T00:00:10Z")),
    ).toBe(informerLagSeconds(older, svc, Date.parse("2026-01-01T00:00:10Z")));
    const applyOnly = {
      ...svc,
      metadata: { ...svc.metadata, managedFields: managedFields.slice(1, 2) },
    };
    expect(projectObject(applyOnly).metadata).toEqual({ name: "web", namespace: "shop" });
  });

  it("keeps of a Pod the fields the watchers read", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "shop", labels: { app: "web" }, uid: "u1" },
      spec: {
        nodeName: "node-a",
        serviceAccountName: "web",
        hostNetwork: false,
        dnsPolicy: "ClusterFirst",
        volumes: [{ name: "data" }],
        initContainers: [
          {
            name: "linkerd-proxy",
            image: "proxy",
            env: [
              { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
              { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            ],
            resources: { limits: { cpu: "1" } },
          },
        ],
        containers: [
          {
            name: "app",
            image: "app",
            ports: [{ name: "http", containerPort: 8080, hostPort: 18080, protocol: "TCP" }],
            livenessProbe: { httpGet: { path: "/" } },
          },
        ],
      },
      status: {
        phase: "Running",
        podIP: "10.0.0.1",
        podIPs: [{ ip: "10.0.0.1" }],
        hostIP: "172.18.0.2",
        hostIPs: [{ ip: "172.18.0.2" }],
        conditions: [{ type: "Ready", status: "True" }],
        containerStatuses: [{ name: "app", ready: true }],
      },
    } as unknown as Pod;
    expect(projectObject(pod)).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-1", namespace: "shop", labels: { app: "web" }, uid: "u1" },
      spec: {
        nodeName: "node-a",
        serviceAccountName: "web",
        hostNetwork: false,
        initContainers: [
          {
            name: "linkerd-proxy",
            env: [
              { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "0.0.0.0:4143" },
              { name: "POD_IP" },
            ],
          },
        ],
        containers: [
          {
            name: "app",
            ports: [{ name: "http", containerPort: 8080, hostPort: 18080, protocol: "TCP" }],
          },
        ],
      },
      status: {
        phase: "Running",
        podIP: "10.0.0.1",
        podIPs: [{ ip: "10.0.0.1" }],
        hostIP: "172.18.0.2",
        hostIPs: [{ ip: "172.18.0.2" }],
      },
    });
  });

  it("leaves malformed parts as they are, for the indexes to skip", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "odd" },
      spec: { containers: "not a list" },
    } as unknown as Pod;
    expect(projectObject(pod)).toEqual(pod);
  });

  it("keeps of a Service the fields the watchers read, and a malformed spec as it is", () => {
    const svc = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [
          { name: "http", protocol: "TCP", appProtocol: "http", port: 80, targetPort: "http" },
        ],
        selector: { app: "web" },
        sessionAffinity: "None",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        internalTrafficPolicy: "Cluster",
      },
      status: { loadBalancer: {} },
    } as unknown as Service;
    expect(projectObject(svc)).toStrictEqual({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: "http" }],
        selector: { app: "web" },
        ipFamilies: ["IPv4"],
        internalTrafficPolicy: "Cluster",
      },
    });
    // Validation sees a wrongly typed spec or port list and skips the Service with a warning.
    const odd = { ...svc, spec: "ClusterIP" } as unknown as Service;
    expect(projectObject(odd).spec).toBe("ClusterIP");
    const oddPorts = { ...svc, spec: { ports: "80" } } as unknown as Service;
    expect(projectObject(oddPorts).spec).toStrictEqual({ ports: "80" });
  });
});
