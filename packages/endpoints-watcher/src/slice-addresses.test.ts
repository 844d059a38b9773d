import type { ExternalWorkload, Server } from "@destination/core";
import {
  externalWorkload as buildExternalWorkload,
  NS,
  pod,
  podEndpoint,
  server,
  service,
  slice,
} from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness, WEB } from "../test/support/fixtures.js";

function externalWorkload(name: string, ip: string): ExternalWorkload {
  return buildExternalWorkload(name, {
    ip,
    labels: { app: "legacy" },
    owner: { kind: "VMGroup", name: "legacy-vms" },
    ports: [{ name: "http", port: 8080 }],
    meshTLS: { identity: "spiffe://legacy", serverName: "legacy" },
  });
}

describe("slice conversion", () => {
  it("a dual-stack pod is one ID per address family; two addresses of one endpoint collapse", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: ["10.0.0.1", "fd00::1"] }));
    h.cluster.apply(
      slice("web-v4", "web", [
        { ...podEndpoint("web-1", "10.0.0.1"), addresses: ["10.0.0.1", "10.0.0.11"] },
      ]),
    );
    h.cluster.apply(
      slice("web-v6", "web", [podEndpoint("web-1", "fd00::1")], { addressType: "IPv6" }),
    );
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv6 fd00::1:8080"] }]);
    h.cluster.delete("EndpointSlice", NS, "web-v6");
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.11:8080"] },
      { remove: ["ns/web-1/IPv6 fd00::1:8080"] },
    ]);
  });

  it("a pod reference without a namespace means its slice's namespace", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-a", "web", [
        { addresses: ["10.0.0.1"], targetRef: { kind: "Pod", name: "web-1" } },
      ]),
    );
    expect(h.listen().take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("an ExternalWorkload endpoint is keyed by its name, with its owner's kind lower-cased", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(externalWorkload("legacy-1", "192.168.1.5"));
    h.cluster.apply(
      slice("web-ew", "web", [
        {
          addresses: ["192.168.1.5"],
          targetRef: { kind: "ExternalWorkload", namespace: NS, name: "legacy-1" },
          zone: "zone-a",
        },
      ]),
    );
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/legacy-1/ 192.168.1.5:8080"] }]);
    const address = listener.lastSet()?.addresses.get("ns/legacy-1/")?.address;
    expect(address?.externalWorkload?.metadata.name).toBe("legacy-1");
    expect([address?.ownerKind, address?.ownerName, address?.zone]).toEqual([
      "vmgroup",
      "legacy-vms",
      "zone-a",
    ]);
  });

  it("an endpoint without targetRef is keyed <service>-<ip>-<port>[-<hostname>] and carries the mirror metadata", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(
      slice(
        "web-mirror",
        "web",
        [
          { addresses: ["10.1.0.9"], conditions: { ready: true } },
          { addresses: ["10.1.0.10"], hostname: "web-0", hints: { forZones: [{ name: "z" }] } },
        ],
        {
          annotations: {
            "mirror.linkerd.io/remote-gateway-identity": "gateway.linkerd.cluster.remote",
            "mirror.linkerd.io/remote-svc-fq-name": "web.ns.svc.cluster.remote",
          },
        },
      ),
    );
    const listener = h.listen();
    expect(listener.take()).toEqual([
      {
        add: ["ns/web-10.1.0.10-8080-web-0/ 10.1.0.10:8080", "ns/web-10.1.0.9-8080/ 10.1.0.9:8080"],
      },
    ]);
    const address = listener.lastSet()?.addresses.get("ns/web-10.1.0.10-8080-web-0/")?.address;
    expect(address).toMatchObject({
      identity: "gateway.linkerd.cluster.remote",
      authorityOverride: "web.ns.svc.cluster.remote:80",
      hostname: "web-0",
      zone: null,
      forZones: [{ name: "z" }],
      pod: null,
    });
  });

  it("set labels name the service and namespace, plus the target cluster and service of a mirror", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")], {
        labels: {
          "kubernetes.io/service-name": "web",
          "mirror.linkerd.io/cluster-name": "east",
        },
        annotations: { "mirror.linkerd.io/remote-svc-fq-name": "web.shop.svc.cluster.local" },
      }),
    );
    const listener = h.listen();
    expect(listener.lastSet()?.labels).toEqual({
      service: "web",
      namespace: NS,
      target_cluster: "east",
      target_service: "web",
      target_service_namespace: "shop",
    });
    // Without the mirror label the annotation is not read.
    h.cluster.apply(service("api"));
    h.cluster.apply(
      slice("api-a", "api", [podEndpoint("web-1", "10.0.0.1")], {
        annotations: { "mirror.linkerd.io/remote-svc-fq-name": "web.shop.svc.cluster.local" },
      }),
    );
    const api = h.listen({ service: { namespace: NS, name: "api" } });
    expect(api.lastSet()?.labels).toEqual({ service: "api", namespace: NS });
  });

  it("slice ports resolve by name, numbers pass through, and a slice without ports contributes nothing", () => {
    const h = harness();
    h.cluster.apply(service("web", { ports: [{ name: "http", port: 80 }] }));
    for (const name of ["web-1", "web-2", "web-3", "web-4"]) {
      h.cluster.apply(pod(name, { ip: `10.0.0.${name.slice(-1)}` }));
    }
    h.cluster.apply(slice("no-ports", "web", [podEndpoint("web-1", "10.0.0.1")], { ports: null }));
    h.cluster.apply(slice("empty-ports", "web", [podEndpoint("web-2", "10.0.0.2")], { ports: [] }));
    h.cluster.apply(
      slice("other-name", "web", [podEndpoint("web-3", "10.0.0.3")], {
        ports: [{ name: "metrics", port: 9090 }],
      }),
    );
    h.cluster.apply(
      slice("null-port", "web", [podEndpoint("web-4", "10.0.0.4")], {
        ports: [
          { name: "http", port: null },
          { name: "http", port: 8081 },
        ],
      }),
    );
    // Named target "http": only the slice that names it serves, skipping the null port.
    expect(h.listen({ port: 80 }).take()).toEqual([{ add: ["ns/web-4/IPv4 10.0.0.4:8081"] }]);
    // Numeric target (undeclared port): every slice with a ports field, listed or not.
    expect(h.listen({ port: 7000 }).take()).toEqual([
      {
        add: [
          "ns/web-2/IPv4 10.0.0.2:7000",
          "ns/web-3/IPv4 10.0.0.3:7000",
          "ns/web-4/IPv4 10.0.0.4:7000",
        ],
      },
    ]);
  });

  it("an endpoint whose pod is not cached yet is left out, then added when the pod arrives", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
    );
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    expect(h.logger.messages("debug")).toContain(
      "endpoint's pod is not in the cache yet; added when it arrives",
    );
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    expect(listener.lastSet()?.addresses.get("ns/web-1/IPv4")?.address.pod?.metadata.name).toBe(
      "web-1",
    );
    h.cluster.resync();
    expect(listener.take()).toEqual([]);
  });

  it("a slice naming no Service is skipped with a log; one owned only by reference counts through its own events", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(pod("web-3", { ip: "10.0.0.3" }));
    const listener = h.listen();
    h.cluster.apply(slice("orphan", "web", [podEndpoint("web-1", "10.0.0.1")], { labels: null }));
    h.cluster.apply(
      slice("foreign-owner", "web", [podEndpoint("web-2", "10.0.0.2")], {
        labels: null,
        ownerReferences: [{ kind: "Deployment", name: "web" }],
      }),
    );
    expect(listener.take()).toEqual([]);
    expect(h.logger.messages("warn")).toEqual([
      "EndpointSlice names no Service (label or ownerReference); skipped",
      "EndpointSlice names no Service (label or ownerReference); skipped",
    ]);

    h.cluster.apply(
      slice("by-reference", "web", [podEndpoint("web-3", "10.0.0.3")], {
        labels: null,
        ownerReferences: [
          { kind: "Deployment", name: "other" },
          { kind: "Service", name: "web" },
        ],
      }),
    );
    expect(listener.take()).toEqual([{ add: ["ns/web-3/IPv4 10.0.0.3:8080"] }]);
    // Priming looks slices up by their service-name label, so it finds label-owned ones only.
    expect(h.listen({ port: 8080 }).take()).toEqual([]);
  });

  it("an endpoint with ready=false is not served; null ready counts as ready; serving and terminating are ignored", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    for (const n of [1, 2, 3, 4, 5]) h.cluster.apply(pod(`web-${n}`, { ip: `10.0.0.${n}` }));
    h.cluster.apply(
      slice("web-a", "web", [
        podEndpoint("web-1", "10.0.0.1", { ready: false }),
        podEndpoint("web-2", "10.0.0.2", { ready: null }),
        { ...podEndpoint("web-3", "10.0.0.3"), conditions: null },
        podEndpoint("web-4", "10.0.0.4", { ready: true, serving: false, terminating: true }),
        podEndpoint("web-5", "10.0.0.5", { ready: false, serving: true, terminating: false }),
      ]),
    );
    expect(h.listen().take()).toEqual([
      {
        add: [
          "ns/web-2/IPv4 10.0.0.2:8080",
          "ns/web-3/IPv4 10.0.0.3:8080",
          "ns/web-4/IPv4 10.0.0.4:8080",
        ],
      },
    ]);
  });

  it("an ExternalWorkload address is dropped when a Server selector cannot be evaluated", () => {
    const h = harness();
    h.cluster.apply(service("web"));
    h.cluster.apply(externalWorkload("legacy-1", "192.168.1.5"));
    const invalid: Server = {
      ...server("broken", { port: 8080, podLabelSelector: null }),
      spec: {
        port: 8080,
        proxyProtocol: "opaque",
        externalWorkloadSelector: { matchExpressions: [{ key: "app", operator: "Near" }] },
      },
    };
    h.cluster.apply(invalid);
    h.cluster.apply(
      slice("web-ew", "web", [
        {
          addresses: ["192.168.1.5"],
          targetRef: { kind: "ExternalWorkload", namespace: NS, name: "legacy-1" },
        },
      ]),
    );
    expect(h.listen().take()).toEqual([]);
    expect(h.logger.messages("warn")).toContain(
      "ExternalWorkload address dropped: invalid Server selector",
    );
  });

  it("FQDN slices travel with the FQDN family, untouched by the IPv6 preference; unknown types are skipped", () => {
    const h = harness({ enableIPv6: false });
    h.cluster.apply(service("web"));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    h.cluster.apply(
      slice("web-dns", "web", [podEndpoint("web-1", "web-1.example.com")], {
        addressType: "FQDN",
      }),
    );
    h.cluster.apply(
      slice("web-ip", "web", [podEndpoint("web-1", "10.0.0.1")], { addressType: "IP" }),
    );
    expect(h.listen().take()).toEqual([{ add: ["ns/web-1/FQDN web-1.example.com:8080"] }]);
    expect(h.logger.messages("debug")).toContain(
      "FQDN EndpointSlice: its names are carried but translators drop them",
    );
    expect(h.logger.messages("warn")).toContain(
      "EndpointSlice with an unsupported addressType skipped",
    );
    expect(h.watcher.subscriberCount(WEB)).toBe(1);
  });
});
