import {
  endpointsObject,
  NS,
  pod,
  podEndpoint,
  service,
  slice,
} from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness, SERIES, servedWeb } from "../test/support/fixtures.js";

const podRef = (name: string) => ({ kind: "Pod", namespace: NS, name });

/** Endpoints mode, IPv6 off: web:80 → "http" → 8080, pods web-1 and web-2, no Endpoints yet. */
const endpointsMode = () =>
  servedWeb({ pods: 2, slices: 0, enableEndpointSlices: false, enableIPv6: false });

describe("Endpoints mode", () => {
  it("Endpoints mode reads Endpoints and ignores slices; slice mode the reverse", () => {
    const endpoints = endpointsObject("web", [
      {
        addresses: [{ ip: "10.0.0.1", targetRef: podRef("web-1") }],
        ports: [{ name: "http", port: 8080 }],
      },
    ]);
    const webSlice = slice("web-a", "web", [podEndpoint("web-2", "10.0.0.2")]);

    const legacy = endpointsMode();
    const legacyListener = legacy.listen();
    legacy.cluster.apply(endpoints);
    legacy.cluster.apply(webSlice);
    expect(legacyListener.take()).toEqual([{ add: ["ns/web-1/ 10.0.0.1:8080"] }]);

    const modern = harness();
    modern.cluster.apply(service("web"));
    modern.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    modern.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    const modernListener = modern.listen();
    modern.cluster.apply(endpoints);
    modern.cluster.apply(webSlice);
    expect(modernListener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
  });

  it("a named target resolves per subset; subsets without it are skipped; numbers pass through", () => {
    const h = endpointsMode();
    h.cluster.apply(
      endpointsObject("web", [
        {
          addresses: [{ ip: "10.0.0.1", targetRef: podRef("web-1") }],
          ports: [{ name: "http", port: 8080 }],
        },
        {
          addresses: [{ ip: "10.0.0.2", targetRef: podRef("web-2") }],
          ports: [{ name: "metrics", port: 9090 }],
        },
      ]),
    );
    expect(h.listen({ port: 80 }).take()).toEqual([{ add: ["ns/web-1/ 10.0.0.1:8080"] }]);
    expect(h.listen({ port: 7000 }).take()).toEqual([
      { add: ["ns/web-1/ 10.0.0.1:7000", "ns/web-2/ 10.0.0.2:7000"] },
    ]);
  });

  it("only ready addresses are served; notReadyAddresses never", () => {
    const h = endpointsMode();
    h.cluster.apply(
      endpointsObject("web", [
        {
          addresses: [{ ip: "10.0.0.1", targetRef: podRef("web-1") }],
          notReadyAddresses: [{ ip: "10.0.0.2", targetRef: podRef("web-2") }],
          ports: [{ name: "http", port: 8080 }],
        },
      ]),
    );
    expect(h.listen().take()).toEqual([{ add: ["ns/web-1/ 10.0.0.1:8080"] }]);
  });

  it("an Endpoints update publishes the difference; zero ready addresses remove everything but still exist", () => {
    const h = endpointsMode();
    const listener = h.listen();
    const subset = (...names: string[]) => ({
      addresses: names.map((n) => ({ ip: `10.0.0.${n.slice(-1)}`, targetRef: podRef(n) })),
      ports: [{ name: "http", port: 8080 }],
    });
    h.cluster.apply(endpointsObject("web", [subset("web-1")]));
    h.cluster.apply(endpointsObject("web", [subset("web-2")]));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/ 10.0.0.1:8080"] },
      { add: ["ns/web-2/ 10.0.0.2:8080"] },
      { remove: ["ns/web-1/ 10.0.0.1:8080"] },
    ]);
    h.cluster.apply(endpointsObject("web", [subset()]));
    expect(listener.take()).toEqual([{ remove: ["ns/web-2/ 10.0.0.2:8080"] }]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(1);
    expect(h.metrics.value("endpoints_pods", SERIES)).toBe(0);
  });

  it("deleting the Endpoints object removes everything and marks it as not existing", () => {
    const h = endpointsMode();
    h.cluster.apply(
      endpointsObject("web", [
        {
          addresses: [{ ip: "10.0.0.1", targetRef: podRef("web-1") }],
          ports: [{ name: "http", port: 8080 }],
        },
      ]),
    );
    const listener = h.listen();
    listener.take();
    h.cluster.delete("Endpoints", NS, "web");
    expect(listener.take()).toEqual([{ remove: ["ns/web-1/ 10.0.0.1:8080"] }]);
    expect(h.metrics.value("endpoints_exists", SERIES)).toBe(0);
  });

  it("in Endpoints mode a port remap re-reads the Endpoints object", () => {
    const h = endpointsMode();
    h.cluster.apply(
      endpointsObject("web", [
        {
          addresses: [{ ip: "10.0.0.1", targetRef: podRef("web-1") }],
          ports: [
            { name: "http", port: 8080 },
            { name: "alt", port: 9090 },
          ],
        },
      ]),
    );
    const listener = h.listen();
    listener.take();
    h.cluster.apply(service("web", { ports: [{ name: "alt", port: 80 }] }));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/ 10.0.0.1:9090"] },
      { remove: ["ns/web-1/ 10.0.0.1:8080"] },
    ]);
  });

  it("in Endpoints mode a mirrored address joins its authority without brackets and keeps an empty hostname", () => {
    const h = endpointsMode();
    h.cluster.apply(
      endpointsObject(
        "web",
        [{ addresses: [{ ip: "10.1.0.9" }], ports: [{ name: "http", port: 8080 }] }],
        {
          annotations: {
            "mirror.linkerd.io/remote-gateway-identity": "gw.remote",
            "mirror.linkerd.io/remote-svc-fq-name": "web.ns.svc.cluster.remote",
          },
        },
      ),
    );
    const listener = h.listen();
    expect(listener.take()).toEqual([{ add: ["ns/web-10.1.0.9-8080/ 10.1.0.9:8080"] }]);
    expect(listener.lastSet()?.addresses.get("ns/web-10.1.0.9-8080/")?.address).toMatchObject({
      identity: "gw.remote",
      authorityOverride: "web.ns.svc.cluster.remote:80",
      hostname: "",
    });
  });
});
