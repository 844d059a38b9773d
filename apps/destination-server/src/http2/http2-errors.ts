import type { ErrorCode } from "./frame-types.js";

/** A fault that ends the whole connection: GOAWAY with `code`, then the socket closes. */
export class ConnectionError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "ConnectionError";
    this.code = code;
  }
}

/** A fault of one stream: RST_STREAM with `code`; the connection and its other streams go on. */
export class StreamError extends Error {
  readonly code: ErrorCode;
  readonly streamId: number;
  constructor(streamId: number, code: ErrorCode, message: string) {
    super(message);
    this.name = "StreamError";
    this.streamId = streamId;
    this.code = code;
  }
}
