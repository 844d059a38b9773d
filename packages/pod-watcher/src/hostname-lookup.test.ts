import type { Endpoint, EndpointAddress } from "@destination/core";
import { NS, pod } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, setup } from "../test/support/fixtures.js";

const service = { namespace: NS, name: "db" };

function slice(name: string, endpoints: Endpoint[]) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: NS, labels: { "kubernetes.io/service-name": "db" } },
    addressType: "IPv4",
    endpoints,
    ports: [{ name: "pg", port: 5432 }],
  };
}

function endpoints(addresses: EndpointAddress[], notReadyAddresses: EndpointAddress[] = []) {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: "db", namespace: NS },
    subsets: [{ addresses, notReadyAddresses, ports: [{ port: 5432 }] }],
  };
}

const podRef = (name: string) => ({ kind: "Pod", namespace: NS, name });

async function subscribeTo(
  hostname: string,
  enableEndpointSlices = true,
  setupCluster = (_: Awaited<ReturnType<typeof setup>>["cluster"]) => {},
) {
  const env = await setup({ enableEndpointSlices });
  setupCluster(env.cluster);
  const listener = new RecordingListener();
  let ip: string | undefined;
  let error: unknown;
  try {
    ip = await env.watcher.subscribe({ ip: "", port: 5432, hostname, service }, listener);
  } catch (e) {
    error = e;
  }
  return { ip, error, listener };
}

describe("instance-name lookups, EndpointSlice mode", () => {
  it("resolves the instance to its pod and subscribes on the pod's primary IP", async () => {
    const { ip, listener } = await subscribeTo("db-1", true, (cluster) => {
      cluster.apply(pod("db-0", { ip: "10.0.0.10" }));
      cluster.apply(pod("db-1", { ip: "10.0.0.11" }));
      cluster.apply(
        slice("db-abc", [
          { addresses: ["10.0.0.10"], hostname: "db-0", targetRef: podRef("db-0") },
          { addresses: ["10.0.0.11"], hostname: "db-1", targetRef: podRef("db-1") },
        ]),
      );
    });
    expect(ip).toBe("10.0.0.11");
    expect(listener.views.map((v) => [v.ip, v.port, v.pod])).toEqual([["10.0.0.11", 5432, "db-1"]]);
  });

  it("matches endpoints whatever their conditions", async () => {
    const { ip, listener } = await subscribeTo("db-0", true, (cluster) => {
      cluster.apply(pod("db-0", { ip: "10.0.0.10", phase: "Pending" }));
      cluster.apply(
        slice("db-abc", [
          {
            addresses: ["10.0.0.10"],
            hostname: "db-0",
            targetRef: podRef("db-0"),
            conditions: { ready: false },
          },
        ]),
      );
    });
    expect(ip).toBe("10.0.0.10");
    expect(listener.views.map((v) => v.pod)).toEqual([null]);
  });

  it("no endpoint with that hostname is NOT_FOUND", async () => {
    const { error } = await subscribeTo("db-7", true, (cluster) => {
      cluster.apply(pod("db-0", { ip: "10.0.0.10" }));
      cluster.apply(
        slice("db-abc", [
          { addresses: ["10.0.0.10"], hostname: "db-0", targetRef: podRef("db-0") },
        ]),
      );
    });
    expect(error).toMatchObject({
      code: "NOT_FOUND",
      message: "no pod found in EndpointSlices of Service ns/db for hostname db-7",
    });
  });

  it("a first hostname match whose targetRef is not a Pod is NOT_FOUND, not a crash", async () => {
    const { error } = await subscribeTo("vm-0", true, (cluster) => {
      cluster.apply(
        slice("db-abc", [
          {
            addresses: ["192.168.1.10"],
            hostname: "vm-0",
            targetRef: { kind: "ExternalWorkload", namespace: NS, name: "vm-0" },
          },
          { addresses: ["192.168.1.11"], hostname: "vm-0", targetRef: podRef("db-0") },
        ]),
      );
      cluster.apply(pod("db-0", { ip: "192.168.1.11" }));
    });
    expect(error).toMatchObject({
      code: "NOT_FOUND",
      message: "no pod found in EndpointSlices of Service ns/db for hostname vm-0",
    });
  });

  it("a matching pod missing from the cache is the cache's UNKNOWN not-found", async () => {
    const { error } = await subscribeTo("db-0", true, (cluster) => {
      cluster.apply(
        slice("db-abc", [
          { addresses: ["10.0.0.10"], hostname: "db-0", targetRef: podRef("db-0") },
        ]),
      );
    });
    expect(error).toMatchObject({ code: "UNKNOWN", message: 'pod "db-0" not found' });
  });
});

describe("instance-name lookups, pods without an IP", () => {
  it("a matching pod that has no IP yet is UNKNOWN, so the proxy retries", async () => {
    const { error } = await subscribeTo("db-0", true, (cluster) => {
      cluster.apply(pod("db-0", { ip: "", phase: "Pending" }));
      cluster.apply(
        slice("db-abc", [
          { addresses: ["10.0.0.10"], hostname: "db-0", targetRef: podRef("db-0") },
        ]),
      );
    });
    expect(error).toMatchObject({ code: "UNKNOWN", message: 'pod "db-0" has no IP' });
  });
});

describe("instance-name lookups, Endpoints mode", () => {
  it("resolves the instance from the ready addresses of the Endpoints", async () => {
    const { ip, listener } = await subscribeTo("db-0", false, (cluster) => {
      cluster.apply(pod("db-0", { ip: "10.0.0.10" }));
      cluster.apply(endpoints([{ ip: "10.0.0.10", hostname: "db-0", targetRef: podRef("db-0") }]));
    });
    expect(ip).toBe("10.0.0.10");
    expect(listener.views.map((v) => v.pod)).toEqual(["db-0"]);
  });

  it("not-ready addresses are not searched", async () => {
    const { error } = await subscribeTo("db-0", false, (cluster) => {
      cluster.apply(pod("db-0", { ip: "10.0.0.10" }));
      cluster.apply(
        endpoints([], [{ ip: "10.0.0.10", hostname: "db-0", targetRef: podRef("db-0") }]),
      );
    });
    expect(error).toMatchObject({
      code: "NOT_FOUND",
      message: "no pod found in Endpoints ns/db for hostname db-0",
    });
  });

  it("a hostname match without a Pod targetRef is NOT_FOUND, not a crash", async () => {
    const { error } = await subscribeTo("db-0", false, (cluster) => {
      cluster.apply(endpoints([{ ip: "10.0.0.10", hostname: "db-0" }]));
    });
    expect(error).toMatchObject({
      code: "NOT_FOUND",
      message: "no pod found in Endpoints ns/db for hostname db-0",
    });
  });

  it("a missing Endpoints object is UNKNOWN", async () => {
    const { error } = await subscribeTo("db-0", false);
    expect(error).toMatchObject({ code: "UNKNOWN", message: 'endpoints "db" not found' });
  });

  it("a matching pod missing from the cache is UNKNOWN", async () => {
    const { error } = await subscribeTo("db-0", false, (cluster) => {
      cluster.apply(endpoints([{ ip: "10.0.0.10", hostname: "db-0", targetRef: podRef("db-0") }]));
    });
    expect(error).toMatchObject({ code: "UNKNOWN", message: 'pod "db-0" not found' });
  });
});
