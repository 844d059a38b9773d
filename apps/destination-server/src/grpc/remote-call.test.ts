import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { streamCallOf } from "../streams/stream-session.js";
import { Outbox, RemoteCall } from "./remote-call.js";
import { GET, type ToServing } from "./serving-thread-protocol.js";

function accepted(id: number) {
  return {
    id,
    method: GET,
    peer: `127.0.0.1:${40000 + id}`,
    scheme: "k8s",
    path: "web.ns.svc.cluster.local:80",
    contextToken: "{}",
  } as const;
}

function outbox() {
  const sent: ToServing[] = [];
  return { sent, box: new Outbox((m) => sent.push(m)) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("Outbox", () => {
  it("sends one task's writes and ends in one message, a payload written to many calls once", async () => {
    const { sent, box } = outbox();
    const update = new Uint8Array([1, 2, 3]);
    const other = new Uint8Array([4]);
    box.write(7, update);
    box.write(8, update);
    box.write(7, other);
    box.end(8, status.OK, "");
    expect(sent).toEqual([]);
    await tick();
    expect(sent).toEqual([
      { t: "out", writes: [7, 0, 8, 0, 7, 1], payloads: [update, other], ends: [[8, 0, ""]] },
    ]);
    await tick();
    expect(sent).toHaveLength(1);
  });

  it("flushes at once when asked, and sends nothing when nothing waits", () => {
    const { sent, box } = outbox();
    box.flush();
    expect(sent).toEqual([]);
    box.end(3, status.NOT_FOUND, "gone");
    box.flush();
    expect(sent).toEqual([{ t: "out", writes: [], payloads: [], ends: [[3, 5, "gone"]] }]);
  });
});

describe("RemoteCall", () => {
  it("carries the request and peer the serving thread accepted", () => {
    const call = new RemoteCall(accepted(1), outbox().box);
    expect(call.request).toMatchObject({
      scheme: "k8s",
      path: "web.ns.svc.cluster.local:80",
      contextToken: "{}",
    });
    expect(call.getPeer()).toBe("127.0.0.1:40001");
  });

  it("reports backpressure once the serving thread paused it, and 'drain' when it drained", () => {
    const { box } = outbox();
    const call = new RemoteCall(accepted(2), box);
    expect(call.write(new Uint8Array([1]))).toBe(true);
    call.pause();
    expect(call.write(new Uint8Array([2]))).toBe(false);
    let drained = 0;
    call.once("drain", () => drained++);
    call.drain();
    call.drain();
    expect(drained).toBe(1);
    expect(call.write(new Uint8Array([3]))).toBe(true);
  });

  it("ends through a stream session's end, with its status, once", async () => {
    const { sent, box } = outbox();
    const call = new RemoteCall(accepted(3), box);
    const stream = streamCallOf(call.asServerCall());
    stream.end(status.INVALID_ARGUMENT, "bad authority");
    stream.end(status.OK);
    await tick();
    expect(sent).toEqual([{ t: "out", writes: [], payloads: [], ends: [[3, 3, "bad authority"]] }]);
  });

  it("tells a session the client left, and drops what is written after", async () => {
    const { sent, box } = outbox();
    const call = new RemoteCall(accepted(4), box);
    const stream = streamCallOf(call.asServerCall());
    let aborted = 0;
    stream.onAbort(() => aborted++);
    call.cancel();
    call.cancel();
    expect(aborted).toBe(1);
    expect(call.cancelled).toBe(true);
    expect(stream.write(new Uint8Array([1]))).toBe(true);
    await tick();
    expect(sent).toEqual([]);
  });
});
