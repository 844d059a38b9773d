import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  endpoint,
  externalWorkload,
  pod,
  podEndpoint,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import type { EndpointsReport } from "./endpoints-report.js";
import {
  debugEndpointsReply,
  type EndpointsReportOptions,
  endpointsReport,
  parseServiceParam,
} from "./endpoints-report.js";

const NS = "shop";
const WEB = { namespace: NS, name: "web" };
const options: EndpointsReportOptions = { enableIpv6: true, enableEndpointSlices: true };

function clusterWith(...objects: object[]): MemoryCluster {
  const cluster = new MemoryCluster();
  for (const o of objects) cluster.apply(o as Parameters<MemoryCluster["apply"]>[0]);
  return cluster;
}

const webService = service("web", {
  namespace: NS,
  ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
  clusterIP: "10.96.0.10",
});
const webPod = (name: string, ip: string) =>
  pod(name, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    labels: { "pod-template-hash": "5d9c" },
    replicaSet: "web-5d9c",
    nodeName: "node-a",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });

/** Each address with its verdict, the way a reader scans the report. */
function verdicts(report: ReturnType<typeof endpointsReport>) {
  return report?.endpointSlices.flatMap((s) =>
    s.endpoints.flatMap((e) => e.addresses.map((a) => [a.address, a.served, a.reason])),
  );
}

describe("endpointsReport", () => {
  it("describes the Service, its slice and the pod behind each served address", () => {
    const cluster = clusterWith(
      webService,
      replicaSet("web-5d9c", "web", { namespace: NS }),
      webPod("web-0", "10.1.0.1"),
      slice(
        "web-abc",
        "web",
        [podEndpoint("web-0", "10.1.0.1", { namespace: NS, zone: "zone-a" })],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(report?.service).toEqual({
      namespace: NS,
      name: "web",
      type: "ClusterIP",
      clusterIPs: ["10.96.0.10"],
      internalTrafficPolicy: null,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
    });
    expect(report?.endpointSlices).toEqual([
      {
        name: "web-abc",
        addressType: "IPv4",
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        servesPorts: [{ servicePort: 80, port: 8080 }],
        endpoints: [
          {
            addresses: [
              {
                address: "10.1.0.1",
                pod: {
                  name: "web-0",
                  namespace: NS,
                  phase: "Running",
                  podIP: "10.1.0.1",
                  node: "node-a",
                  owner: { kind: "deployment", name: "web" },
                },
                served: true,
                reason: null,
              },
            ],
            conditions: { ready: true, serving: null, terminating: null },
            targetRef: { kind: "Pod", namespace: NS, name: "web-0" },
            nodeName: null,
            zone: "zone-a",
            hints: null,
          },
        ],
      },
    ]);
    expect(report?.notes).toEqual([]);
  });

  it("says why addresses are not served: not ready, pod missing, ExternalWorkload missing", () => {
    const cluster = clusterWith(
      webService,
      webPod("web-0", "10.1.0.1"),
      webPod("web-1", "10.1.0.2"),
      externalWorkload("vm-1", {
        namespace: NS,
        ip: "10.9.0.1",
        ports: [{ port: 8080 }],
        labels: { app: "vm-1" },
        meshTLS: { identity: "spiffe://vm-1", serverName: "vm-1" },
      }),
      slice(
        "web-abc",
        "web",
        [
          podEndpoint("web-0", "10.1.0.1", { namespace: NS }),
          podEndpoint("web-1", "10.1.0.2", { namespace: NS, ready: false }),
          podEndpoint("web-gone", "10.1.0.3", { namespace: NS }),
        ],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
      {
        ...slice("web-ext", "web", [], {
          namespace: NS,
          ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        }),
        endpoints: [
          { addresses: ["10.9.0.1"], targetRef: { kind: "ExternalWorkload", name: "vm-1" } },
          { addresses: ["10.9.0.2"], targetRef: { kind: "ExternalWorkload", name: "vm-gone" } },
          { addresses: ["10.9.0.3"], targetRef: { kind: "Node", name: "n" } },
        ],
      },
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(verdicts(report)).toEqual([
      ["10.1.0.1", true, null],
      ["10.1.0.2", false, "not ready"],
      ["10.1.0.3", false, "pod missing"],
      ["10.9.0.1", true, null],
      ["10.9.0.2", false, "externalworkload missing"],
      ["10.9.0.3", false, "unsupported target kind"],
    ]);
    const missing = report?.endpointSlices[0]?.endpoints[2]?.addresses[0];
    expect(missing?.pod).toBeNull();
  });

  it("flags a slice without the Service's port and an unsupported address type", () => {
    const cluster = clusterWith(
      webService,
      webPod("web-0", "10.1.0.1"),
      slice("web-a", "web", [podEndpoint("web-0", "10.1.0.1", { namespace: NS })], {
        namespace: NS,
        ports: [{ name: "metrics", port: 9090, protocol: "TCP" }],
      }),
      {
        ...slice("web-b", "web", [podEndpoint("web-0", "10.1.0.1", { namespace: NS })], {
          namespace: NS,
          ports: [{ name: "http", port: 8080, protocol: "TCP" }],
        }),
        addressType: "AppleTalk",
      },
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(report?.endpointSlices[0]?.servesPorts).toEqual([]);
    expect(verdicts(report)).toEqual([
      ["10.1.0.1", false, "no matching port"],
      ["10.1.0.1", false, "unsupported address type"],
    ]);
  });

  it("leaves out IPv6 addresses when IPv6 is disabled", () => {
    const cluster = clusterWith(webService, webPod("web-0", "fd00::1"), {
      ...slice("web-v6", "web", [podEndpoint("web-0", "fd00::1", { namespace: NS })], {
        namespace: NS,
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      }),
      addressType: "IPv6",
    });
    expect(verdicts(endpointsReport(cluster, WEB, { ...options, enableIpv6: false }))).toEqual([
      ["fd00::1", false, "IPv6 disabled"],
    ]);
    expect(verdicts(endpointsReport(cluster, WEB, options))).toEqual([["fd00::1", true, null]]);
  });

  it("serves a dual-stack pod over IPv6 only, as the watcher does", () => {
    const v4 = slice("web-v4", "web", [podEndpoint("web-0", "10.1.0.1", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    });
    const v6 = {
      ...slice("web-v6", "web", [podEndpoint("web-0", "fd00::1", { namespace: NS })], {
        namespace: NS,
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      }),
      addressType: "IPv6",
    };
    const cluster = clusterWith(webService, webPod("web-0", "10.1.0.1"), v4, v6);
    expect(verdicts(endpointsReport(cluster, WEB, options))).toEqual([
      ["10.1.0.1", false, "IPv4 of a dual-stack workload"],
      ["fd00::1", true, null],
    ]);
    expect(verdicts(endpointsReport(cluster, WEB, { ...options, enableIpv6: false }))).toEqual([
      ["10.1.0.1", true, null],
      ["fd00::1", false, "IPv6 disabled"],
    ]);
  });

  it("serves one address of an endpoint that lists several, as the watcher does", () => {
    const base = slice("web-abc", "web", [podEndpoint("web-0", "10.1.0.1", { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    });
    const twoAddresses = {
      ...base,
      endpoints: base.endpoints?.map((ep) => ({ ...ep, addresses: ["10.1.0.1", "10.1.0.2"] })),
    };
    const cluster = clusterWith(webService, webPod("web-0", "10.1.0.1"), twoAddresses);
    expect(verdicts(endpointsReport(cluster, WEB, options))).toEqual([
      ["10.1.0.1", false, "another address of the endpoint is served"],
      ["10.1.0.2", true, null],
    ]);
  });

  it("notes per-subscriber zone filtering when endpoints carry hints", () => {
    const cluster = clusterWith(
      webService,
      webPod("web-0", "10.1.0.1"),
      slice(
        "web-abc",
        "web",
        [podEndpoint("web-0", "10.1.0.1", { namespace: NS, zone: "zone-a", forZones: ["zone-a"] })],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(report?.endpointSlices[0]?.endpoints[0]?.hints).toEqual({ forZones: ["zone-a"] });
    expect(report?.notes).toEqual([expect.stringMatching(/^topology: .*zone/)]);
  });

  it("reports slices of a Service that is not cached, and nothing for an unknown one", () => {
    const cluster = clusterWith(
      slice("web-abc", "web", [endpoint("10.1.0.9")], {
        namespace: NS,
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      }),
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(report?.service).toBeNull();
    expect(verdicts(report)).toEqual([["10.1.0.9", true, null]]);
    expect(report?.notes).toEqual([expect.stringContaining("NOT_FOUND")]);
    expect(endpointsReport(cluster, { namespace: NS, name: "nope" }, options)).toBeUndefined();
  });

  it("includes the watcher's subscriber counts per port", () => {
    const cluster = clusterWith(webService);
    const counts = new Map([
      [80, 2],
      [81, 1],
    ]);
    const report = endpointsReport(cluster, WEB, {
      ...options,
      subscribers: {
        subscriberCount: (_id, port) =>
          port === undefined
            ? [...counts.values()].reduce((a, b) => a + b)
            : (counts.get(port) ?? 0),
        subscribedPorts: () => [...counts.keys()],
      },
    });
    expect(report?.subscribers).toEqual({
      total: 3,
      ports: [
        { port: 80, subscribers: 2 },
        { port: 81, subscribers: 1 },
      ],
    });
    expect(endpointsReport(cluster, WEB, options)?.subscribers).toBeNull();
  });
});

const EMPTY: EndpointsReport = { service: null, endpointSlices: [], subscribers: null, notes: [] };
const query = (text: string) => new URLSearchParams(text);

describe("parseServiceParam", () => {
  it("reads namespace/name", () => {
    expect(parseServiceParam(query("service=emojivoto/web-svc"))).toEqual({
      namespace: "emojivoto",
      name: "web-svc",
    });
  });

  it.each([
    ["", /^missing query parameter/],
    ["service=", /^service must be NAMESPACE\/NAME/],
    ["service=web-svc", /not "web-svc"$/],
    ["service=a/b/c", /not "a\/b\/c"$/],
    ["service=Emojivoto/web", /not "Emojivoto\/web"$/],
    ["service=ns/1web", /not "ns\/1web"$/],
    ["service=ns/a&service=ns/b", /once/],
  ])("refuses %j", (text, message) => {
    expect(parseServiceParam(query(text))).toMatch(message);
  });
});

describe("debugEndpointsReply", () => {
  it("answers 400 with a JSON error for a bad parameter, before anything else", () => {
    expect(debugEndpointsReply(query("service=nope"), undefined)).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^service must be/) },
    });
  });

  it("answers 503 until the caches have synced", () => {
    expect(debugEndpointsReply(query("service=ns/web"), undefined).status).toBe(503);
  });

  it("answers 404 for an unknown Service and 200 with the report otherwise", () => {
    const asked: unknown[] = [];
    const reporter = (id: { namespace: string; name: string }) => {
      asked.push(id);
      return id.name === "web" ? EMPTY : undefined;
    };
    expect(debugEndpointsReply(query("service=ns/web"), reporter)).toEqual({
      status: 200,
      body: EMPTY,
    });
    expect(debugEndpointsReply(query("service=ns/gone"), reporter)).toEqual({
      status: 404,
      body: { error: "Service ns/gone not found (no Service, no EndpointSlices)" },
    });
    expect(asked).toEqual([
      { namespace: "ns", name: "web" },
      { namespace: "ns", name: "gone" },
    ]);
  });
});
