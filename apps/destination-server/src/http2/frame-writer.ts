import { FRAME_HEADER_BYTES, FrameType } from "./frame-types.js";

/** Writes a frame header into `target` at `at`. */
export function writeFrameHeader(
  target: Buffer,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  target[at] = length >>> 16;
  target.writeUInt16BE(length & 0xffff, at + 1);
  target[at + 3] = type;
  target[at + 4] = flags;
  target.writeUInt32BE(streamId, at + 5);
}

/** A whole frame: header and payload in one buffer. */
export function frame(type: number, flags: number, streamId: number, payload?: Uint8Array): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  writeFrameHeader(out, 0, length, type, flags, streamId);
  if (payload !== undefined) out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

export function settingsFrame(settings: ReadonlyMap<number, number>): Buffer {
  const payload = Buffer.allocUnsafe(settings.size * 6);
  let at = 0;
  for (const [id, value] of settings) {
    payload.writeUInt16BE(id, at);
    payload.writeUInt32BE(value, at + 2);
    at += 6;
  }
  return frame(FrameType.SETTINGS, 0, 0, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 4);
  writeFrameHeader(out, 0, 4, FrameType.WINDOW_UPDATE, 0, streamId);
  out.writeUInt32BE(increment, FRAME_HEADER_BYTES);
  return out;
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 4);
  writeFrameHeader(out, 0, 4, FrameType.RST_STREAM, 0, streamId);
  out.writeUInt32BE(code, FRAME_HEADER_BYTES);
  return out;
}

export function goawayFrame(lastStreamId: number, code: number, debug = ""): Buffer {
  const debugBytes = Buffer.from(debug, "latin1");
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + 8 + debugBytes.length);
  writeFrameHeader(out, 0, 8 + debugBytes.length, FrameType.GOAWAY, 0, 0);
  out.writeUInt32BE(lastStreamId, FRAME_HEADER_BYTES);
  out.writeUInt32BE(code, FRAME_HEADER_BYTES + 4);
  out.set(debugBytes, FRAME_HEADER_BYTES + 8);
  return out;
}
