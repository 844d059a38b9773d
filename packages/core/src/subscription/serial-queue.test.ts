import { describe, expect, it, vi } from "vitest";
import type { Logger } from "../logger.js";
import { SerialQueue } from "./serial-queue.js";
import { newSubscription, type Subscription } from "./subscription.js";

type Listener = (value: string) => void;

/** A logger whose calls can be asserted. */
function spyLogger() {
  type Log = Logger["error"];
  return { debug: vi.fn<Log>(), info: vi.fn<Log>(), warn: vi.fn<Log>(), error: vi.fn<Log>() };
}

function setup() {
  const logger = spyLogger();
  const queue = new SerialQueue({ logger });
  /** Registers `listener` and hands it `value`, as a watcher's subscribe does. */
  const join = (key: string, listener: Listener, value = "v0") => {
    queue.deliver([newSubscription(listener)], (l) => l(value), { key });
  };
  return { logger, queue, join };
}

describe("SerialQueue", () => {
  it("hands a joining listener the current value at once", () => {
    const { join } = setup();
    const seen: string[] = [];
    join("a", (v) => void seen.push(v), "first");
    expect(seen).toEqual(["first"]);
  });

  it("runs what a listener causes after it returns, after the rest of its batch", () => {
    const { queue } = setup();
    const log: string[] = [];
    const a: Subscription<Listener> = newSubscription((value: string) => {
      log.push(`a ${value}`);
      if (value === "1") queue.deliver([b], (l) => l("2"), {});
      log.push(`a ${value} done`);
    });
    const b = newSubscription<Listener>((value) => void log.push(`b ${value}`));
    queue.deliver([a, b], (l) => l("1"), {});
    expect(log).toEqual(["a 1", "a 1 done", "b 1", "b 2"]);
  });

  it("never re-enters a listener: a task started from one waits until it returns", () => {
    const { queue, join } = setup();
    const log: string[] = [];
    const inner: Listener = (v) => void log.push(`inner ${v}`);
    join("a", (v) => {
      log.push(`outer enter ${v}`);
      queue.run(() => {
        log.push("task");
        join("b", inner, "b0");
      });
      log.push(`outer exit ${v}`);
    });
    expect(log).toEqual(["outer enter v0", "outer exit v0", "task", "inner b0"]);
  });

  it("throws from a task run now; logs a deferred one that throws and runs the rest", () => {
    const { queue, logger } = setup();
    expect(() =>
      queue.run(() => {
        throw new Error("now");
      }),
    ).toThrow("now");
    const log: string[] = [];
    queue.run(() => {
      queue.run(
        () => {
          throw new Error("later");
        },
        { id: "deferred" },
      );
      queue.run(() => void log.push("after"));
    });
    expect(log).toEqual(["after"]);
    expect(logger.error).toHaveBeenCalledWith("deferred watcher task failed", {
      id: "deferred",
      error: "Error: later",
    });
  });

  it("drops calls still queued for a subscription that has ended", () => {
    const { queue } = setup();
    const seen: string[] = [];
    const b = newSubscription<Listener>((value) => void seen.push(value));
    const a = newSubscription<Listener>(() => {
      b.active = false;
    });
    queue.deliver([a, b], (l) => l("x"), {});
    expect(seen).toEqual([]);
  });

  it("logs a throwing listener with its own call's context and calls the rest", () => {
    const { queue, logger } = setup();
    const seen: string[] = [];
    const thrower: Subscription<Listener> = newSubscription((value: string) => {
      queue.deliver([other], (l) => l(`${value} nested`), { id: "nested" });
      throw new Error(value);
    });
    const other = newSubscription<Listener>((value) => void seen.push(value));
    queue.deliver([thrower, other], (l) => l("outer"), { id: "outer" });
    expect(seen).toEqual(["outer", "outer nested"]);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith("listener failed", {
      id: "outer",
      error: "Error: outer",
    });
  });
});
