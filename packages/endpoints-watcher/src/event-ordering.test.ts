import type { ExternalWorkload, PartialObjectMetadata } from "@destination/core";
import {
  externalWorkload as buildExternalWorkload,
  replicaSet as buildReplicaSet,
  endpointsObject,
  NS,
  pod,
  podEndpoint,
  server,
  service,
  slice,
} from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness } from "../test/support/fixtures.js";

const RS = { kind: "ReplicaSet", name: "web-7d4f" };

/** The ReplicaSet RS, owned by Deployment `deployment`. */
function replicaSet(deployment: string): PartialObjectMetadata {
  return buildReplicaSet(RS.name, deployment, { ownerUid: "d1" });
}

function externalWorkload(name: string, ip: string): ExternalWorkload {
  return buildExternalWorkload(name, {
    ip,
    labels: { app: "web" },
    ports: [{ name: "http", port: 8080 }],
    meshTLS: { identity: "spiffe://root.linkerd.cluster.local/vm", serverName: "vm.cluster.local" },
  });
}

describe("event ordering: every order of the same objects ends in the same addresses", () => {
  it("a pod cached after the slice that lists it is added when it arrives, with its metadata", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    const listener = h.listen();
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
    );
    expect(listener.take()).toEqual([]);
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2", ownerReferences: [RS] }));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", ownerReferences: [RS] }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    const added = listener.lastSet();
    expect(added?.labels).toEqual({ namespace: NS, service: "web" });
    const address = added?.addresses.get("ns/web-1/IPv4")?.address;
    expect(address?.pod?.metadata.name).toBe("web-1");
    expect([address?.ownerKind, address?.ownerName]).toEqual(["replicaset", RS.name]);
    // Later pod updates that only touch its status are not announced again.
    h.cluster.apply({
      ...pod("web-1", { ip: "10.0.0.1", ownerReferences: [RS] }),
      status: { phase: "Running", podIP: "10.0.0.1", hostIP: "192.168.0.3" },
    });
    expect(listener.take()).toEqual([]);
  });

  it("a pod a slice stopped listing, or whose slice went, is not added when it arrives", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    const listener = h.listen();
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
    );
    h.cluster.apply(slice("web-b", "web", [podEndpoint("web-3", "10.0.0.3")]));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]));
    h.cluster.delete("EndpointSlice", NS, "web-b");
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(pod("web-3", { ip: "10.0.0.3" }));
    expect(listener.take()).toEqual([]);
    expect(listener.holds()).toEqual(["ns/web-2/IPv4 10.0.0.2:8080"]);
  });

  it("a ReplicaSet cached after its pods corrects their owner to the Deployment", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", ownerReferences: [RS] }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    const before = listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address;
    expect([before?.ownerKind, before?.ownerName]).toEqual(["replicaset", RS.name]);

    h.cluster.apply(replicaSet("web"));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    const after = listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address;
    expect([after?.ownerKind, after?.ownerName]).toEqual(["deployment", "web"]);

    // Status churn on the ReplicaSet (same owner) announces nothing.
    h.cluster.apply({
      ...replicaSet("web"),
      status: { replicas: 2 },
    });
    expect(listener.take()).toEqual([]);
  });

  it("a Server cached before or after the pod marks its port opaque either way", () => {
    const serverFirst = harness();
    serverFirst.cluster.apply(service("web"));
    serverFirst.cluster.apply(server("web-opaque", { port: 8080, podSelector: { app: "web" } }));
    const first = serverFirst.listen();
    serverFirst.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    serverFirst.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(first.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque"] }]);

    const serverLast = harness();
    serverLast.cluster.apply(service("web"));
    const last = serverLast.listen();
    serverLast.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
    serverLast.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    serverLast.cluster.apply(server("web-opaque", { port: 8080, podSelector: { app: "web" } }));
    expect(last.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080"] },
      { add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque"] },
    ]);
    expect(last.holds()).toEqual(first.holds());
  });

  it("a pod deleted and re-created under the same name before its slice changes is withdrawn, then announced anew", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("db-0", { ip: "10.0.0.1", labels: { app: "web", rev: "1" } }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("db-0", "10.0.0.1")]));
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/db-0/IPv4 10.0.0.1:8080"] }]);

    // The pod goes while the slice still lists it: without its pod the endpoint is not served.
    h.cluster.delete("Pod", NS, "db-0");
    expect(listener.take()).toEqual([{ remove: ["ns/db-0/IPv4 10.0.0.1:8080"] }]);
    // A new pod of the same name (new uid and labels) arrives before the slice is updated.
    h.cluster.apply(pod("db-0", { ip: "10.0.0.9", labels: { app: "web", rev: "2" } }));
    expect(listener.take()).toEqual([{ add: ["ns/db-0/IPv4 10.0.0.1:8080"] }]);
    expect(listener.lastSet()?.addresses.get("ns/db-0/IPv4")?.address.pod?.metadata.labels).toEqual(
      { app: "web", rev: "2" },
    );
    // Then the slice moves the endpoint to the new IP: added there, withdrawn at the old one.
    h.cluster.apply(slice("web-a", "web", [podEndpoint("db-0", "10.0.0.9")]));
    expect(listener.take()).toEqual([
      { add: ["ns/db-0/IPv4 10.0.0.9:8080"] },
      { remove: ["ns/db-0/IPv4 10.0.0.1:8080"] },
    ]);
  });

  it("a slice that names the re-created pod before it is cached adds it once it arrives", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("db-0", { ip: "10.0.0.1" }));
    h.cluster.apply(slice("web-a", "web", [podEndpoint("db-0", "10.0.0.1")]));
    const listener = h.listen();
    listener.take();
    h.cluster.delete("Pod", NS, "db-0");
    expect(listener.take()).toEqual([{ remove: ["ns/db-0/IPv4 10.0.0.1:8080"] }]);
    h.cluster.apply(slice("web-a", "web", [podEndpoint("db-0", "10.0.0.9")]));
    expect(listener.take()).toEqual([]);
    h.cluster.apply(pod("db-0", { ip: "10.0.0.9" }));
    expect(listener.take()).toEqual([{ add: ["ns/db-0/IPv4 10.0.0.9:8080"] }]);
  });

  it("an ExternalWorkload cached after its slice is added when it arrives", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    const listener = h.listen();
    h.cluster.apply(
      slice("web-a", "web", [
        {
          addresses: ["10.1.0.1"],
          conditions: { ready: true },
          targetRef: { kind: "ExternalWorkload", namespace: NS, name: "vm-1" },
        },
      ]),
    );
    expect(listener.take()).toEqual([]);
    h.cluster.apply(externalWorkload("vm-1", "10.1.0.1"));
    expect(listener.take()).toEqual([{ add: ["ns/vm-1/ 10.1.0.1:8080"] }]);
    expect(
      listener.lastSet()?.addresses.get("ns/vm-1/")?.address.externalWorkload?.metadata.name,
    ).toBe("vm-1");
  });

  it("Endpoints mode: a pod cached after the Endpoints object is added when it arrives", () => {
    const h = harness({ enableEndpointSlices: false });
    h.cluster.apply(service("web"));
    const listener = h.listen();
    h.cluster.apply(
      endpointsObject("web", [
        {
          addresses: [{ ip: "10.0.0.1", targetRef: { kind: "Pod", namespace: NS, name: "web-1" } }],
          ports: [{ name: "http", port: 8080 }],
        },
      ]),
    );
    expect(listener.take()).toEqual([]);
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/ 10.0.0.1:8080"] }]);
  });
});
