import { NS, pod, podEndpoint, server, service, slice } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { harness } from "../test/support/fixtures.js";

/** web-1 behind a subscribed service, and its listener with the first add taken. */
function webPod(labels: Record<string, string> = { app: "web" }) {
  const h = harness();
  h.cluster.apply(service("web"));
  h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels }));
  h.cluster.apply(slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1")]));
  const listener = h.listen();
  listener.take();
  return { h, listener };
}

describe("pod label edits", () => {
  it("announce nothing when no address reads the label", () => {
    const { h, listener } = webPod();
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", build: "42" } }));
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", build: "43" } }));
    expect(listener.take()).toEqual([]);
  });

  it("re-announce the pod when a Server of its namespace selects on the label", () => {
    const { h, listener } = webPod();
    h.cluster.apply(server("canary", { port: 8080, podSelector: { track: "canary" } }));
    expect(listener.take()).toEqual([]);
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", track: "canary" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque"] }]);
  });

  it("are seen by a Server created after them", () => {
    const { h, listener } = webPod();
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", track: "canary" } }));
    expect(listener.take()).toEqual([]);
    h.cluster.apply(server("canary", { port: 8080, podSelector: { track: "canary" } }));
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080 opaque"] }]);
    h.cluster.delete("Server", NS, "canary");
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("re-announce the pod when a label its address carries changes", () => {
    const { h, listener } = webPod({ app: "web", "pod-template-hash": "abc" });
    h.cluster.apply(
      pod("web-1", { ip: "10.0.0.1", labels: { app: "web", "pod-template-hash": "def" } }),
    );
    expect(listener.take()).toEqual([{ add: ["ns/web-1/IPv4 10.0.0.1:8080"] }]);
  });

  it("reach the address with the slice's next change, as upstream's do", () => {
    const { h, listener } = webPod();
    h.cluster.apply(pod("web-1", { ip: "10.0.0.1", labels: { app: "web", build: "42" } }));
    expect(listener.take()).toEqual([]);
    h.cluster.apply(pod("web-2", { ip: "10.0.0.2" }));
    h.cluster.apply(
      slice("web-a", "web", [podEndpoint("web-1", "10.0.0.1"), podEndpoint("web-2", "10.0.0.2")]),
    );
    expect(listener.take()).toEqual([
      { add: ["ns/web-1/IPv4 10.0.0.1:8080", "ns/web-2/IPv4 10.0.0.2:8080"] },
    ]);
    const web1 = [...listener.held.values()].find((e) => e.address.pod?.metadata.name === "web-1");
    expect(web1?.address.pod?.metadata.labels).toEqual({ app: "web", build: "42" });
  });
});
