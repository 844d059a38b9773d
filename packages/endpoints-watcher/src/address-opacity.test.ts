import { NS, pod, podEndpoint, server, service, slice } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness } from "../test/support/fixtures.js";

/** web-1 (app=web) and web-2 (app=web, track=canary), port 8080 named "http". */
function twoPods() {
  const h = harness();
  h.cluster.apply(service("web"));
  h.cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
  h.cluster.apply(pod("web-2", { ip: "10.0.0.2", labels: { app: "web", track: "canary" } }));
  h.cluster.apply(
    slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
  );
  return h;
}

describe("Server-driven opacity", () => {
  it("an opaque Server marks what it selects, also for new subscribers; its deletion clears it", () => {
    const h = twoPods();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(server("opaque-web", { port: 8080, podSelector: { app: "web" } }));
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque", "ns/web-2/IPv4 10.0.0.2:8080 opaque"] },
    ]);
    expect(h.listen({ port: 8080 }).take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque", "ns/web-2/IPv4 10.0.0.2:8080 opaque"] },
    ]);
    h.cluster.delete("Server", NS, "opaque-web");
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
  });

  it("Servers of another namespace never change these addresses, on add, update or delete", () => {
    const h = twoPods();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(
      server("elsewhere", { port: 8080, podSelector: { app: "web" }, namespace: "other" }),
    );
    h.cluster.apply(
      server("elsewhere", { port: "http", podLabelSelector: {}, namespace: "other" }),
    );
    h.cluster.delete("Server", "other", "elsewhere");
    expect(listener.take()).toEqual([]);
  });

  it("only addresses whose opacity flips are re-announced; a named port matches the container port name", () => {
    const h = twoPods();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(server("canary", { port: "http", podSelector: { track: "canary" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080 opaque"] }]);
    // Another port name, or a non-opaque protocol, selects nothing that flips.
    h.cluster.apply(server("canary", { port: "admin", podSelector: { track: "canary" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
    h.cluster.apply(
      server("canary-http", {
        port: 8080,
        proxyProtocol: "HTTP/2",
        podSelector: { track: "canary" },
      }),
    );
    expect(listener.take()).toEqual([]);
  });

  it("a non-opaque Server's update keeps the opacity another opaque Server grants", () => {
    const h = twoPods();
    h.cluster.apply(server("a-opaque", { port: 8080, podSelector: { app: "web" } }));
    h.cluster.apply(
      server("b-http", { port: 8080, proxyProtocol: "HTTP/1", podSelector: { app: "web" } }),
    );
    const listener = h.listen();
    listener.take();
    // Upstream took B's word alone and cleared the flag until the next resync.
    h.cluster.apply(
      server("b-http", { port: 8080, proxyProtocol: "HTTP/2", podSelector: { app: "web" } }),
    );
    expect(listener.take()).toEqual([]);
    expect(listener.holds()).toEqual([
      "ns/web-1/IPv4 10.0.0.1:8080 opaque",
      "ns/web-2/IPv4 10.0.0.2:8080 opaque",
    ]);
  });

  it("opacity turns off again when the opaque Server stops selecting the workload", () => {
    const h = twoPods();
    h.cluster.apply(server("a-opaque", { port: 8080, podSelector: { app: "web" } }));
    const listener = h.listen();
    listener.take();
    h.cluster.apply(server("a-opaque", { port: 8080, podSelector: { track: "canary" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
    h.cluster.apply(server("a-opaque", { port: 8080, podSelector: { app: "none" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-2/IPv4 10.0.0.2:8080"] }]);
  });

  it("a Server with an invalid selector is logged and changes nothing", () => {
    const h = twoPods();
    const listener = h.listen();
    listener.take();
    h.cluster.apply(
      server("broken", {
        port: 8080,
        podLabelSelector: { matchExpressions: [{ key: "app", operator: "Near" }] },
      }),
    );
    expect(listener.take()).toEqual([]);
    expect(h.logger.messages("warn")).toContain("Server with an invalid selector skipped");
  });
});
