import { silentLogger } from "@destination/core";
import { describe, expect, it } from "vitest";
import { StreamQueue, type WritableCall } from "./stream-queue.js";

/** A transport that accepts `room` writes before reporting backpressure until drained. */
class FakeCall implements WritableCall {
  readonly written: string[] = [];
  #drain: (() => void) | undefined;
  constructor(public room: number) {}
  write(chunk: Uint8Array): boolean {
    this.written.push(Buffer.from(chunk).toString());
    this.room -= 1;
    return this.room > 0;
  }
  once(_event: "drain", listener: () => void): unknown {
    this.#drain = listener;
    return this;
  }
  drain(room: number): void {
    this.room = room;
    const listener = this.#drain;
    this.#drain = undefined;
    listener?.();
  }
}

function queueOn(call: FakeCall, capacity: number) {
  const events = { overflows: 0, refused: 0, written: 0 };
  const queue = new StreamQueue<string>({
    call,
    capacity,
    encode: (m) => Buffer.from(m),
    onOverflow: () => events.overflows++,
    onRefused: () => events.refused++,
    onWritten: () => events.written++,
    logger: silentLogger,
  });
  return { queue, events };
}

describe("StreamQueue", () => {
  it("writes straight through while the transport accepts", () => {
    const call = new FakeCall(100);
    const { queue, events } = queueOn(call, 2);
    for (const m of ["a", "b", "c", "d"]) expect(queue.send(m)).toBe(true);
    expect(call.written).toEqual(["a", "b", "c", "d"]);
    expect(queue.length).toBe(0);
    expect(events).toEqual({ overflows: 0, refused: 0, written: 4 });
  });

  it("holds messages while the transport is backed up and sends them in order on drain", () => {
    const call = new FakeCall(1);
    const { queue } = queueOn(call, 3);
    queue.send("a");
    queue.send("b");
    queue.send("c");
    expect(call.written).toEqual(["a"]);
    expect(queue.length).toBe(2);
    call.drain(10);
    expect(call.written).toEqual(["a", "b", "c"]);
    expect(queue.length).toBe(0);
    queue.send("d");
    expect(call.written).toEqual(["a", "b", "c", "d"]);
  });

  it("stops again when the transport pushes back during a drain", () => {
    const call = new FakeCall(1);
    const { queue } = queueOn(call, 5);
    for (const m of ["a", "b", "c", "d"]) queue.send(m);
    call.drain(2);
    expect(call.written).toEqual(["a", "b", "c"]);
    expect(queue.length).toBe(1);
    call.drain(5);
    expect(call.written).toEqual(["a", "b", "c", "d"]);
  });

  it("overflows once at capacity, then refuses and counts every message", () => {
    const call = new FakeCall(1);
    const { queue, events } = queueOn(call, 2);
    expect(queue.send("a")).toBe(true); // written, transport now full
    expect(queue.send("b")).toBe(true);
    expect(queue.send("c")).toBe(true);
    expect(queue.send("d")).toBe(false);
    expect(queue.overflowed).toBe(true);
    expect(queue.send("e")).toBe(false);
    expect(events).toEqual({ overflows: 1, refused: 2, written: 1 });
    call.drain(10);
    // Nothing queued survives an overflow.
    expect(call.written).toEqual(["a"]);
  });

  it("refuses silently once closed", () => {
    const call = new FakeCall(1);
    const { queue, events } = queueOn(call, 2);
    queue.send("a");
    queue.send("b");
    queue.close();
    expect(queue.send("c")).toBe(false);
    call.drain(10);
    expect(call.written).toEqual(["a"]);
    expect(events.refused).toBe(0);
  });

  it("skips a message that fails to encode and keeps going", () => {
    const call = new FakeCall(10);
    const queue = new StreamQueue<string>({
      call,
      capacity: 2,
      encode: (m) => {
        if (m === "bad") throw new Error("boom");
        return Buffer.from(m);
      },
      onOverflow: () => {},
      logger: silentLogger,
    });
    queue.send("a");
    queue.send("bad");
    queue.send("b");
    expect(call.written).toEqual(["a", "b"]);
  });

  it("rejects a capacity below one", () => {
    expect(() => queueOn(new FakeCall(1), 0)).toThrow(RangeError);
  });
});

describe("StreamQueue sources (one per federated member)", () => {
  it("gives each source its own capacity over one ordered writer; any overflow ends it all", () => {
    const call = new FakeCall(1);
    const { queue, events } = queueOn(call, 2);
    const refused = { east: 0, local: 0 };
    const east = queue.source(() => refused.east++);
    const local = queue.source(() => refused.local++);
    expect(east.send("e1")).toBe(true); // written; the transport is now backed up
    for (const m of ["e2", "l1", "e3", "l2"]) {
      expect((m.startsWith("e") ? east : local).send(m)).toBe(true);
    }
    expect(queue.length).toBe(4); // two waiting per source, more than the capacity of one
    call.drain(100);
    expect(call.written).toEqual(["e1", "e2", "l1", "e3", "l2"]);

    call.drain(1);
    expect(local.send("l3")).toBe(true);
    expect(local.send("l4")).toBe(true);
    expect(local.send("l5")).toBe(true);
    expect(local.send("l6")).toBe(false); // the local source is full: the whole stream ends
    expect(east.send("e4")).toBe(false);
    expect(refused).toEqual({ east: 1, local: 1 });
    expect(events.overflows).toBe(1);
    expect(events.refused).toBe(0);
  });
});
