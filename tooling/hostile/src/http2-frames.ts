// HTTP/2 frames as raw bytes (RFC 9113 §4, §6), written by hand so an attack can send what no
// well-behaved client library would: empty CONTINUATIONs, resets by the thousand, floods.
export const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flag = {
  END_STREAM: 0x1,
  ACK: 0x1,
  END_HEADERS: 0x4,
} as const;

export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  MAX_CONCURRENT_STREAMS: 0x3,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
} as const;

/** RFC 9113 §7 error codes by number, for reading a GOAWAY or RST_STREAM. */
export const ERROR_CODE_NAMES: Readonly<Record<number, string>> = {
  0: "NO_ERROR",
  1: "PROTOCOL_ERROR",
  2: "INTERNAL_ERROR",
  3: "FLOW_CONTROL_ERROR",
  4: "SETTINGS_TIMEOUT",
  5: "STREAM_CLOSED",
  6: "FRAME_SIZE_ERROR",
  7: "REFUSED_STREAM",
  8: "CANCEL",
  9: "COMPRESSION_ERROR",
  10: "CONNECT_ERROR",
  11: "ENHANCE_YOUR_CALM",
  12: "INADEQUATE_SECURITY",
  13: "HTTP_1_1_REQUIRED",
};

export const FRAME_HEADER_LENGTH = 9;

const EMPTY: Buffer = Buffer.alloc(0);

/** One frame: the 9-byte header (24-bit length, type, flags, 31-bit stream id), then payload. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer = EMPTY,
): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + payload.length);
  out.writeUIntBE(payload.length, 0, 3);
  out.writeUInt8(type, 3);
  out.writeUInt8(flags, 4);
  out.writeUInt32BE(streamId & 0x7fffffff, 5);
  payload.copy(out, FRAME_HEADER_LENGTH);
  return out;
}

export function settings(entries: readonly (readonly [id: number, value: number])[] = []): Buffer {
  const payload = Buffer.allocUnsafe(entries.length * 6);
  entries.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return frame(FrameType.SETTINGS, 0, 0, payload);
}

export const SETTINGS_ACK = frame(FrameType.SETTINGS, Flag.ACK, 0);

export function ping(opaque: bigint, ack = false): Buffer {
  const payload = Buffer.allocUnsafe(8);
  payload.writeBigUInt64BE(opaque);
  return frame(FrameType.PING, ack ? Flag.ACK : 0, 0, payload);
}

export function headers(
  streamId: number,
  block: Buffer,
  options: { endHeaders: boolean; endStream: boolean },
): Buffer {
  const flags =
    (options.endHeaders ? Flag.END_HEADERS : 0) | (options.endStream ? Flag.END_STREAM : 0);
  return frame(FrameType.HEADERS, flags, streamId, block);
}

export function continuation(streamId: number, block: Buffer, endHeaders: boolean): Buffer {
  return frame(FrameType.CONTINUATION, endHeaders ? Flag.END_HEADERS : 0, streamId, block);
}

export function data(streamId: number, payload: Buffer, endStream: boolean): Buffer {
  return frame(FrameType.DATA, endStream ? Flag.END_STREAM : 0, streamId, payload);
}

export function rstStream(streamId: number, errorCode: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(errorCode);
  return frame(FrameType.RST_STREAM, 0, streamId, payload);
}

export function windowUpdate(streamId: number, increment: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(increment & 0x7fffffff);
  return frame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
}
