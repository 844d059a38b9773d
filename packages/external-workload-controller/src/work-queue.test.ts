import { ManualClock } from "@destination/test-support/manual-clock";
import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it } from "vitest";
import { queueMetrics } from "./queue-metrics.js";
import { WorkQueue } from "./work-queue.js";

describe("WorkQueue", () => {
  it("queues a key once, however often it is added", async () => {
    const queue = new WorkQueue();
    queue.add("ns/a");
    queue.add("ns/a");
    queue.add("ns/b");
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe("ns/a");
    expect(await queue.get()).toBe("ns/b");
  });

  it("hands a key out again only after done, when it was added while in progress", async () => {
    const queue = new WorkQueue();
    queue.add("ns/a");
    expect(await queue.get()).toBe("ns/a");
    queue.add("ns/a");
    expect(queue.length).toBe(0);
    queue.done("ns/a");
    expect(await queue.get()).toBe("ns/a");
  });

  it("brings a failed key back after a delay that doubles from 5 ms", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    queue.addRateLimited("ns/a");
    expect(queue.length).toBe(0);
    clock.advance(5);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe("ns/a");
    queue.done("ns/a");
    queue.addRateLimited("ns/a");
    clock.advance(9);
    expect(queue.length).toBe(0);
    clock.advance(1);
    expect(queue.length).toBe(1);
    expect(queue.numRequeues("ns/a")).toBe(2);
    queue.forget("ns/a");
    expect(queue.numRequeues("ns/a")).toBe(0);
  });

  it("resolves a waiting get with undefined once shut down, and drops what was queued on clear", async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    const other = new WorkQueue();
    other.add("ns/a");
    other.clear();
    expect(other.length).toBe(0);
  });

  it("reports upstream's workqueue metrics", async () => {
    const clock = new ManualClock();
    const metrics = new InMemoryMetrics();
    const queue = new WorkQueue({
      clock,
      metrics: queueMetrics(metrics, "endpoints_controller_workqueue"),
    });
    const name = { name: "endpoints_controller_workqueue" };
    queue.add("ns/a");
    queue.add("ns/b");
    expect(metrics.value("workqueue_adds_total", name)).toBe(2);
    expect(metrics.value("workqueue_depth", name)).toBe(2);
    await queue.get();
    expect(metrics.value("workqueue_depth", name)).toBe(1);
    queue.addRateLimited("ns/c");
    expect(metrics.value("workqueue_retries_total", name)).toBe(1);
    expect(metrics.value("workqueue_drops_total", name)).toBe(0);
  });
});
