import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { frameMessage, MAX_RECEIVE_MESSAGE_BYTES, MessageReader } from "./message-frames.js";
import { Status } from "./status-code.js";
import { StatusError } from "./status-error.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

function failure(run: () => unknown): StatusError {
  try {
    run();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("expected a StatusError");
}

describe("frameMessage", () => {
  it("prefixes the uncompressed flag and the big-endian length", () => {
    expect([...frameMessage(bytes("hi"))]).toEqual([0, 0, 0, 0, 2, 0x68, 0x69]);
    expect([...frameMessage(new Uint8Array(0))]).toEqual([0, 0, 0, 0, 0]);
    expect([...frameMessage(new Uint8Array(300)).subarray(0, 5)]).toEqual([0, 0, 0, 1, 44]);
  });
});

describe("MessageReader", () => {
  it("reads the messages of one chunk, an empty one included", () => {
    const reader = new MessageReader("");
    const chunk = Buffer.concat([
      frameMessage(bytes("a")),
      frameMessage(bytes("")),
      frameMessage(bytes("bc")),
    ]);
    expect(reader.push(chunk).map(String)).toEqual(["a", "", "bc"]);
    expect(reader.partial).toBe(false);
  });

  it("reads a message however it is split, down to single bytes", () => {
    const whole = Buffer.concat([frameMessage(bytes("hello")), frameMessage(bytes("world"))]);
    const reader = new MessageReader("");
    const read: string[] = [];
    for (let i = 0; i < whole.length; i++) {
      read.push(...reader.push(whole.subarray(i, i + 1)).map(String));
      expect(reader.partial).toBe(i !== 9 && i !== whole.length - 1);
    }
    expect(read).toEqual(["hello", "world"]);
  });

  it("refuses a message over the limit as soon as its length is known", () => {
    const head = Buffer.from([0, 0, 0, 0, 0]);
    head.writeUInt32BE(MAX_RECEIVE_MESSAGE_BYTES + 1, 1);
    const err = failure(() => new MessageReader("").push(head));
    expect(err.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(err.details).toBe(
      `Received message larger than max (${MAX_RECEIVE_MESSAGE_BYTES + 1} vs. ${MAX_RECEIVE_MESSAGE_BYTES})`,
    );
  });

  it("inflates a compressed message with the call's encoding", () => {
    const body = gzipSync(bytes("compressed"));
    const frame = Buffer.concat([Buffer.from([1, 0, 0, 0, body.length]), body]);
    expect(new MessageReader("gzip").push(frame).map(String)).toEqual(["compressed"]);
  });

  it("refuses a compressed message it cannot inflate", () => {
    const frame = Buffer.from([1, 0, 0, 0, 2, 0x68, 0x69]);
    expect(failure(() => new MessageReader("").push(frame))).toMatchObject({
      code: Status.INTERNAL,
      details: 'Compressed message received with grpc-encoding "identity"',
    });
    expect(failure(() => new MessageReader("gzip").push(frame)).code).toBe(Status.INTERNAL);
  });
});
