import { InMemoryMetrics } from "@destination/test-support/metrics";
import { describe, expect, it } from "vitest";
import { type LingerTimers, type Publisher, PublisherRegistry } from "./publisher-registry.js";
import { SerialQueue } from "./serial-queue.js";
import { newSubscription, type Subscription } from "./subscription.js";

type Listener = (value: string) => void;

/** Timers fired by hand, so a linger is exact in tests. */
class ManualTimers implements LingerTimers {
  #next = 0;
  readonly #due = new Map<number, () => void>();

  setTimeout(callback: () => void): unknown {
    const handle = ++this.#next;
    this.#due.set(handle, callback);
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.#due.delete(handle as number);
  }

  get pending(): number {
    return this.#due.size;
  }

  fireAll(): void {
    const due = [...this.#due.values()];
    this.#due.clear();
    for (const callback of due) callback();
  }
}

/** A publisher of one string value with a flat listener list. */
class ValuePublisher implements Publisher {
  readonly subscriptions: Subscription<Listener>[] = [];
  closed = false;

  constructor(public value: string) {}

  get listenerCount(): number {
    return this.subscriptions.length;
  }

  close(): void {
    this.closed = true;
  }

  leave(listener: Listener): void {
    const i = this.subscriptions.findIndex((s) => s.listener === listener);
    const [gone] = this.subscriptions.splice(i, 1);
    if (gone !== undefined) gone.active = false;
  }
}

function setup(options: { lingerMs?: number; timers?: LingerTimers } = {}) {
  const metrics = new InMemoryMetrics();
  const queue = new SerialQueue();
  const publishers = new PublisherRegistry<ValuePublisher>({
    queue,
    gauge: { name: "test_publishers", help: "Live test publishers." },
    metrics,
    ...options,
  });
  /** Joins `listener` to `key` and hands it the current value, as a watcher's subscribe does. */
  const join = (key: string, listener: Listener, initial = "v0") => {
    const publisher = publishers.acquire(key, () => new ValuePublisher(initial));
    const subscription = newSubscription(listener);
    publisher.subscriptions.push(subscription);
    queue.deliver([subscription], (l) => l(publisher.value), { key });
    return publisher;
  };
  const leave = (key: string, listener: Listener) => {
    publishers.get(key)?.leave(listener);
    publishers.release(key);
  };
  const gauge = () => metrics.value("test_publishers");
  return { metrics, queue, publishers, join, leave, gauge };
}

describe("PublisherRegistry", () => {
  it("drops a publisher and closes it when its last listener leaves; the gauge follows", () => {
    const { publishers, join, leave, gauge } = setup();
    expect(gauge()).toBe(0);
    const first: Listener = () => {};
    const second: Listener = () => {};
    const publisher = join("a", first);
    join("a", second);
    join("b", first);
    expect(gauge()).toBe(2);
    leave("a", first);
    expect(publishers.get("a")).toBe(publisher);
    leave("a", second);
    expect(publishers.get("a")).toBeUndefined();
    expect(publisher.closed).toBe(true);
    expect(gauge()).toBe(1);
    expect(publishers.size).toBe(1);
    // A key joined again gets a new publisher, built as the first one was.
    expect(join("a", first)).not.toBe(publisher);
    expect(gauge()).toBe(2);
  });

  it("never drops a publisher in the middle of a task: the drop waits its turn", () => {
    const { queue, publishers, join, leave } = setup();
    const listener: Listener = () => {};
    join("a", listener);
    const seen: (ValuePublisher | undefined)[] = [];
    queue.run(() => {
      leave("a", listener);
      seen.push(publishers.get("a"));
    });
    expect(seen[0]).toBeDefined();
    expect(publishers.get("a")).toBeUndefined();
  });

  it("keeps a publisher that was joined again before its queued drop ran", () => {
    const { queue, publishers, join, leave } = setup();
    const listener: Listener = () => {};
    const publisher = join("a", listener);
    queue.run(() => {
      leave("a", listener);
      join("a", listener);
    });
    expect(publishers.get("a")).toBe(publisher);
    expect(publisher.closed).toBe(false);
  });

  it("with a linger, drops the publisher when the timer fires, unless it was joined again", () => {
    const timers = new ManualTimers();
    const { publishers, join, leave, gauge } = setup({ lingerMs: 1000, timers });
    const listener: Listener = () => {};
    const publisher = join("a", listener);
    leave("a", listener);
    expect(publishers.get("a")).toBe(publisher);
    expect(timers.pending).toBe(1);
    join("a", listener);
    expect(timers.pending).toBe(0);
    leave("a", listener);
    timers.fireAll();
    expect(publishers.get("a")).toBeUndefined();
    expect(publisher.closed).toBe(true);
    expect(gauge()).toBe(0);
  });

  it("finds publishers by group and forgets the group with its last member", () => {
    const publishers = new PublisherRegistry<ValuePublisher>({
      queue: new SerialQueue(),
      gauge: { name: "grouped_publishers", help: "" },
      groupOf: (p) => p.value.split(":")[0] ?? "",
    });
    const a = publishers.acquire("10.0.0.1:80", () => new ValuePublisher("10.0.0.1:80"));
    const b = publishers.acquire("10.0.0.1:81", () => new ValuePublisher("10.0.0.1:81"));
    expect([...publishers.inGroup("10.0.0.1")]).toEqual([a, b]);
    publishers.release("10.0.0.1:80");
    publishers.release("10.0.0.1:81");
    expect([...publishers.inGroup("10.0.0.1")]).toEqual([]);
  });

  it("returns to no publishers and a zero gauge after many keys come and go", () => {
    const { publishers, join, leave, gauge } = setup();
    for (let cycle = 0; cycle < 3; cycle++) {
      const listeners = Array.from({ length: 1000 }, (): Listener => () => {});
      for (const [i, l] of listeners.entries()) join(`key-${i % 100}`, l);
      expect(gauge()).toBe(100);
      for (const [i, l] of listeners.entries()) leave(`key-${i % 100}`, l);
      expect(publishers.size).toBe(0);
      expect(gauge()).toBe(0);
    }
  });

  it("adds up in a gauge shared by two watchers with the same labels", () => {
    const metrics = new InMemoryMetrics();
    const options = { gauge: { name: "shared_publishers", help: "", labels: { cluster: "x" } } };
    const one = new PublisherRegistry<ValuePublisher>({
      ...options,
      metrics,
      queue: new SerialQueue(),
    });
    const two = new PublisherRegistry<ValuePublisher>({
      ...options,
      metrics,
      queue: new SerialQueue(),
    });
    one.acquire("a", () => new ValuePublisher(""));
    two.acquire("a", () => new ValuePublisher(""));
    expect(metrics.value("shared_publishers", { cluster: "x" })).toBe(2);
    one.clear();
    expect(metrics.value("shared_publishers", { cluster: "x" })).toBe(1);
  });
});
