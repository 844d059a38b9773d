import { describe, expect, it } from "vitest";
import { FrameReader } from "./frame-reader.js";
import { FrameType, ping, settings, windowUpdate } from "./http2-frames.js";

describe("FrameReader", () => {
  it("splits frames however the bytes arrive, keeping a partial frame for the next chunk", () => {
    const bytes = Buffer.concat([settings([[0x3, 100]]), ping(7n), windowUpdate(3, 1000)]);
    const reader = new FrameReader();
    const frames = [
      ...reader.push(bytes.subarray(0, 5)),
      ...reader.push(bytes.subarray(5, 20)),
      ...reader.push(bytes.subarray(20)),
    ];
    expect(frames.map((f) => [f.type, f.streamId, f.payload.length])).toEqual([
      [FrameType.SETTINGS, 0, 6],
      [FrameType.PING, 0, 8],
      [FrameType.WINDOW_UPDATE, 3, 4],
    ]);
    expect(frames[0]?.payload.readUInt32BE(2)).toBe(100);
    expect(frames[1]?.payload.readBigUInt64BE()).toBe(7n);
  });
});
