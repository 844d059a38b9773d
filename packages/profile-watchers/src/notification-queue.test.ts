import type { Logger } from "@destination/k8s-discovery";
import { describe, expect, it, vi } from "vitest";
import { NotificationQueue, newSubscription, type Subscription } from "./notification-queue.js";

type Listener = (value: string) => void;

/** A logger whose calls can be asserted. */
function spyLogger() {
  type Log = Logger["error"];
  return { debug: vi.fn<Log>(), info: vi.fn<Log>(), warn: vi.fn<Log>(), error: vi.fn<Log>() };
}

describe("NotificationQueue", () => {
  it("runs calls queued from inside a listener after it returns, after the rest of its batch", () => {
    const queue = new NotificationQueue(spyLogger());
    const log: string[] = [];
    const a: Subscription<Listener> = newSubscription((value: string) => {
      log.push(`a ${value}`);
      if (value === "1") queue.notify([b], (l) => l("2"), {});
      log.push(`a ${value} done`);
    });
    const b = newSubscription<Listener>((value) => void log.push(`b ${value}`));
    queue.notify([a, b], (l) => l("1"), {});
    expect(log).toEqual(["a 1", "a 1 done", "b 1", "b 2"]);
  });

  it("drops calls still queued for a subscription that has ended", () => {
    const queue = new NotificationQueue(spyLogger());
    const seen: string[] = [];
    const b = newSubscription<Listener>((value) => void seen.push(value));
    const a = newSubscription<Listener>(() => {
      b.active = false;
    });
    queue.notify([a, b], (l) => l("x"), {});
    expect(seen).toEqual([]);
  });

  it("logs a throwing listener with its own call's context and runs the rest", () => {
    const logger = spyLogger();
    const queue = new NotificationQueue(logger);
    const seen: string[] = [];
    const thrower: Subscription<Listener> = newSubscription((value: string) => {
      queue.notify([other], (l) => l(`${value} nested`), { id: "nested" });
      throw new Error(value);
    });
    const other = newSubscription<Listener>((value) => void seen.push(value));
    queue.notify([thrower, other], (l) => l("outer"), { id: "outer" });
    expect(seen).toEqual(["outer", "outer nested"]);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith("listener failed", {
      id: "outer",
      error: "Error: outer",
    });
  });
});
