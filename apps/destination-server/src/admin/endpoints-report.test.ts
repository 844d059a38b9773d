import { MemoryCluster } from "@destination/k8s-discovery";
import {
  externalWorkload,
  pod,
  replicaSet,
  service,
  slice,
} from "@destination/test-support/cluster-objects";
import { describe, expect, it } from "vitest";
import { type EndpointsReportOptions, endpointsReport } from "./endpoints-report.js";

const NS = "shop";
const WEB = { namespace: NS, name: "web" };
const options: EndpointsReportOptions = { enableIpv6: true, enableEndpointSlices: true };

function clusterWith(...objects: object[]): MemoryCluster {
  const cluster = new MemoryCluster();
  for (const o of objects) cluster.apply(o as Parameters<MemoryCluster["apply"]>[0]);
  return cluster;
}

const webService = service(NS, "web", [{ name: "http", port: 80, targetPort: 8080 }], {
  clusterIP: "10.96.0.10",
});
const webPod = (name: string, ip: string) =>
  pod({ namespace: NS, name, ip, ports: [["http", 8080]], replicaSet: "web-5d9c", node: "node-a" });

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
      replicaSet(NS, "web-5d9c", "web"),
      webPod("web-0", "10.1.0.1"),
      slice(
        NS,
        "web-abc",
        "web",
        [{ name: "http", port: 8080 }],
        [{ ip: "10.1.0.1", pod: "web-0", zone: "zone-a" }],
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
      externalWorkload(NS, "vm-1", "10.9.0.1", 8080),
      slice(
        NS,
        "web-abc",
        "web",
        [{ name: "http", port: 8080 }],
        [
          { ip: "10.1.0.1", pod: "web-0" },
          { ip: "10.1.0.2", pod: "web-1", ready: false },
          { ip: "10.1.0.3", pod: "web-gone" },
        ],
      ),
      {
        ...slice(NS, "web-ext", "web", [{ name: "http", port: 8080 }], []),
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
      slice(
        NS,
        "web-a",
        "web",
        [{ name: "metrics", port: 9090 }],
        [{ ip: "10.1.0.1", pod: "web-0" }],
      ),
      {
        ...slice(
          NS,
          "web-b",
          "web",
          [{ name: "http", port: 8080 }],
          [{ ip: "10.1.0.1", pod: "web-0" }],
        ),
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
      ...slice(
        NS,
        "web-v6",
        "web",
        [{ name: "http", port: 8080 }],
        [{ ip: "fd00::1", pod: "web-0" }],
      ),
      addressType: "IPv6",
    });
    expect(verdicts(endpointsReport(cluster, WEB, { ...options, enableIpv6: false }))).toEqual([
      ["fd00::1", false, "IPv6 disabled"],
    ]);
    expect(verdicts(endpointsReport(cluster, WEB, options))).toEqual([["fd00::1", true, null]]);
  });

  it("notes per-subscriber zone filtering when endpoints carry hints", () => {
    const cluster = clusterWith(
      webService,
      webPod("web-0", "10.1.0.1"),
      slice(
        NS,
        "web-abc",
        "web",
        [{ name: "http", port: 8080 }],
        [{ ip: "10.1.0.1", pod: "web-0", zone: "zone-a", forZones: ["zone-a"] }],
      ),
    );
    const report = endpointsReport(cluster, WEB, options);
    expect(report?.endpointSlices[0]?.endpoints[0]?.hints).toEqual({ forZones: ["zone-a"] });
    expect(report?.notes).toEqual([expect.stringMatching(/^topology: .*zone/)]);
  });

  it("reports slices of a Service that is not cached, and nothing for an unknown one", () => {
    const cluster = clusterWith(
      slice(NS, "web-abc", "web", [{ name: "http", port: 8080 }], [{ ip: "10.1.0.9" }]),
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
