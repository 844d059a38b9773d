import type { Server } from "@destination/core";
import { externalWorkload, NS, pod, server } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, setup } from "../test/support/fixtures.js";

async function subscribedToWeb(port = 8080) {
  const env = await setup();
  env.cluster.apply(
    pod("web-1", {
      ip: "10.0.0.1",
      hostIp: "172.18.0.2",
      ports: [
        { name: "http", containerPort: 8080 },
        { name: "admin", containerPort: 9990, hostPort: 19990 },
      ],
    }),
  );
  const listener = new RecordingListener();
  await env.watcher.subscribe({ ip: "10.0.0.1", port }, listener);
  return { ...env, listener, opaque: () => listener.views.map((v) => v.opaque) };
}

describe("Server events", () => {
  it("a Server selecting the workload and port turns the flag on; others change nothing", async () => {
    const { cluster, opaque } = await subscribedToWeb();
    cluster.apply(server("other-app", { port: 8080, podSelector: { app: "db" } }));
    cluster.apply(server("other-port", { port: 9990, podSelector: { app: "web" } }));
    cluster.apply(
      server("not-opaque", { port: 8080, podSelector: { app: "web" }, proxyProtocol: "HTTP/2" }),
    );
    cluster.apply(
      server("other-ns", { port: 8080, podSelector: { app: "web" }, namespace: "elsewhere" }),
    );
    expect(opaque()).toEqual([false]);
    cluster.apply(server("web-http", { port: "http", podSelector: { app: "web" } }));
    expect(opaque()).toEqual([false, true]);
  });

  it("a port opaque by the pod annotation is skipped", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(
      pod("web-1", {
        ip: "10.0.0.1",
        annotations: { "config.linkerd.io/opaque-ports": "http" },
        ports: [{ name: "http", containerPort: 8080 }],
      }),
    );
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));
    expect(listener.views.map((v) => v.opaque)).toEqual([false]);
  });

  it("a port opaque by the defaults is skipped", async () => {
    const { cluster, listener } = await subscribedToWeb(3306);
    cluster.apply(server("web-mysql", { port: 3306, podSelector: { app: "web" } }));
    expect(listener.views.map((v) => v.opaque)).toEqual([false]);
  });

  it("a named Server port matches a host port when the pod is reached through it", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(server("web-admin", { port: "admin", podSelector: { app: "web" } }));
    cluster.apply(
      pod("web-1", {
        ip: "10.0.0.1",
        hostIp: "172.18.0.2",
        ports: [{ name: "admin", containerPort: 9990, hostPort: 19990 }],
      }),
    );
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "172.18.0.2", port: 19990 }, listener);
    cluster.apply(server("web-admin", { port: "other", podSelector: { app: "web" } }));
    cluster.apply(server("web-admin", { port: "admin", podSelector: { app: "web" } }));
    expect(listener.views.map((v) => [v.port, v.pod, v.opaque])).toEqual([
      [19990, "web-1", true],
      [19990, "web-1", false],
      [19990, "web-1", true],
    ]);
  });

  it("the flag turns on and off again as a Server flips its protocol and is deleted", async () => {
    const { cluster, opaque } = await subscribedToWeb();
    const web = (proxyProtocol: string) =>
      server("web-http", { port: 8080, podSelector: { app: "web" }, proxyProtocol });
    cluster.apply(web("opaque"));
    cluster.apply(web("HTTP/1"));
    cluster.apply(web("opaque"));
    cluster.delete("Server", NS, "web-http");
    expect(opaque()).toEqual([false, true, false, true, false]);
  });

  it("a Server that stops selecting the pod turns the flag off", async () => {
    const { cluster, opaque } = await subscribedToWeb();
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web", track: "canary" } }));
    expect(opaque()).toEqual([false, true, false]);
  });

  it("the flag comes from all Servers: removing one of two opaque Servers keeps it on", async () => {
    const { cluster, opaque } = await subscribedToWeb();
    cluster.apply(server("by-number", { port: 8080, podSelector: { app: "web" } }));
    cluster.apply(server("by-name", { port: "http", podSelector: { app: "web" } }));
    cluster.delete("Server", NS, "by-number");
    cluster.apply(
      server("by-name", { port: "http", podSelector: { app: "web" }, proxyProtocol: "HTTP/1" }),
    );
    expect(opaque()).toEqual([false, true, false]);
  });

  it("a Server with an invalid selector selects nothing and stops nothing", async () => {
    const { cluster, opaque } = await subscribedToWeb();
    const invalid: Server = {
      ...server("broken", { port: 8080 }),
      spec: {
        port: 8080,
        proxyProtocol: "opaque",
        podSelector: { matchExpressions: [{ key: "app", operator: "In", values: [] }] },
      },
    };
    cluster.apply(invalid);
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } }));
    expect(opaque()).toEqual([false, true]);
  });

  it("Server changes reach an ExternalWorkload, on and off again", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(
      externalWorkload("vm-1", { ip: "192.168.1.10", ports: [{ port: 8080, name: "http" }] }),
    );
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "192.168.1.10", port: 8080 }, listener);
    cluster.apply(server("for-pods", { port: 8080, podSelector: { app: "vm" } }));
    cluster.apply(server("vm-http", { port: "http", externalWorkloadSelector: { app: "vm" } }));
    cluster.apply(server("vm-http", { port: "http", externalWorkloadSelector: { app: "other" } }));
    expect(listener.views.map((v) => [v.ew, v.opaque])).toEqual([
      ["vm-1", false],
      ["vm-1", true],
      ["vm-1", false],
    ]);
  });

  it("a port opaque by the ExternalWorkload annotation is skipped", async () => {
    const { cluster, watcher } = await setup();
    cluster.apply(
      externalWorkload("vm-1", {
        ip: "192.168.1.10",
        annotations: { "config.linkerd.io/opaque-ports": "8080" },
      }),
    );
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "192.168.1.10", port: 8080 }, listener);
    cluster.apply(server("vm-http", { port: 8080, externalWorkloadSelector: { app: "vm" } }));
    expect(listener.views.map((v) => v.opaque)).toEqual([false]);
  });

  it("bare endpoints never hear about Servers", async () => {
    const { cluster, watcher } = await setup();
    const listener = new RecordingListener();
    await watcher.subscribe({ ip: "10.9.9.9", port: 8080 }, listener);
    cluster.apply(server("all", { port: 8080, podSelector: {} }));
    expect(listener.views).toHaveLength(1);
  });
});
