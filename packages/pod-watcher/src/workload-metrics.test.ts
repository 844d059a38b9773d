import { externalWorkload, NS, pod, server } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import { RecordingListener, setup } from "../test/support/fixtures.js";

describe("workload_subscribers and workload_updates", () => {
  it("counts 2 for a first subscribe to a running pod, 1 for a bare endpoint or a reused publisher", async () => {
    const { cluster, watcher, metrics } = await setup();
    expect(metrics.value("workload_subscribers")).toBe(0);
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener());
    expect(metrics.value("workload_updates")).toBe(2);
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener());
    expect(metrics.value("workload_updates")).toBe(3);
    await watcher.subscribe({ ip: "10.9.9.9", port: 80 }, new RecordingListener());
    expect(metrics.value("workload_updates")).toBe(4);
    expect(metrics.value("workload_subscribers")).toBe(3);
  });

  it("counts 2 for a first subscribe to an ExternalWorkload", async () => {
    const { cluster, watcher, metrics } = await setup();
    cluster.apply(externalWorkload("vm-1", { ip: "192.168.1.10" }));
    await watcher.subscribe({ ip: "192.168.1.10", port: 8080 }, new RecordingListener());
    expect(metrics.value("workload_updates")).toBe(2);
  });

  it("counts one round per detach, attach and opacity flip, however many listeners", async () => {
    const { cluster, watcher, metrics } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener());
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, new RecordingListener());
    const before = metrics.value("workload_updates") ?? 0;
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } })); // flip
    cluster.apply(server("web-http", { port: 8080, podSelector: { app: "web" } })); // no flip
    cluster.delete("Pod", NS, "web-1"); // detach
    cluster.apply(pod("web-1", { ip: "10.0.0.1" })); // attach
    expect((metrics.value("workload_updates") ?? 0) - before).toBe(3);
  });

  it("follows unsubscribes, and an unknown ip:port changes nothing", async () => {
    const { watcher, metrics } = await setup();
    const a = new RecordingListener();
    const b = new RecordingListener();
    const ip = await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, a);
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, b);
    watcher.unsubscribe(ip, 8080, a);
    expect(metrics.value("workload_subscribers")).toBe(1);
    watcher.unsubscribe(ip, 9999, b);
    watcher.unsubscribe(ip, 8080, a);
    expect(metrics.value("workload_subscribers")).toBe(1);
    watcher.unsubscribe(ip, 8080, b);
    expect(metrics.value("workload_subscribers")).toBe(0);
  });

  it("workload_publishers counts subscribed ip:port pairs and returns to 0 when all leave", async () => {
    const { cluster, watcher, metrics } = await setup();
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    expect(metrics.value("workload_publishers")).toBe(0);
    for (let cycle = 0; cycle < 3; cycle++) {
      const subscribed = await Promise.all(
        Array.from({ length: 500 }, async (_, i) => {
          const listener = new RecordingListener();
          const port = 8000 + (i % 50);
          const ip = await watcher.subscribe(
            { ip: `10.0.${Math.floor(i / 250)}.1`, port },
            listener,
          );
          return { ip, port, listener };
        }),
      );
      expect(metrics.value("workload_publishers")).toBe(100);
      for (const { ip, port, listener } of subscribed) watcher.unsubscribe(ip, port, listener);
      expect(metrics.value("workload_publishers")).toBe(0);
      expect(metrics.value("workload_subscribers")).toBe(0);
    }
  });

  it("a listener that subscribes from its update is not re-entered; the new one hears after it", async () => {
    const { cluster, watcher } = await setup();
    const log: string[] = [];
    const late = { update: (a: { pod: unknown }) => void log.push(`late ${a.pod ? "pod" : "-"}`) };
    let joined: Promise<string> | undefined;
    const eager = {
      update: (a: { pod: unknown }) => {
        log.push(`eager enter ${a.pod ? "pod" : "-"}`);
        if (a.pod && joined === undefined) {
          joined = watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, late);
        }
        log.push("eager exit");
      },
    };
    await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, eager);
    cluster.apply(pod("web-1", { ip: "10.0.0.1" }));
    await joined;
    expect(log).toEqual([
      "eager enter -",
      "eager exit",
      "eager enter pod",
      "eager exit",
      "late pod",
    ]);
  });
});
