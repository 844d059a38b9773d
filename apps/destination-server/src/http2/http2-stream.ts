import type { ErrorCode } from "./frame-types.js";

/** What a stream tells the one who serves it. */
export interface StreamListener {
  /** Request body bytes, in order. */
  data(chunk: Buffer): void;
  /** The client has sent END_STREAM: no more data. */
  end(): void;
}

/** What a stream asks of its connection: the connection owns the socket and flow control. */
export interface StreamSender {
  sendHeaders(stream: Http2ServerStream, block: Uint8Array, endStream: boolean): void;
  sendData(stream: Http2ServerStream, data: Uint8Array): void;
  /** Ends the stream after its queued bytes: with trailers, or with an empty DATA frame. */
  sendTrailers(stream: Http2ServerStream, block: Uint8Array | undefined): void;
  reset(stream: Http2ServerStream, code: ErrorCode): void;
}

/**
 * One request stream of a client, from the server's side. The connection feeds it frames and
 * moves its queued response bytes out as the flow-control windows allow; the one serving it
 * sees the request body through a listener and the stream's end through `onClose`.
 */
export class Http2ServerStream {
  readonly id: number;
  /** The request's header fields, flat: name, value, name, value, … */
  readonly headers: readonly string[];
  readonly #sender: StreamSender;
  #listener: StreamListener | undefined;
  /** Body bytes that arrived before anyone listened. */
  #early: Buffer[] | undefined;
  /** END_STREAM arrived before anyone listened. */
  #endPending = false;
  #closeListeners: (() => void)[] = [];
  #drainListeners: (() => void)[] = [];

  /** What the client still lets us send on this stream (its window; may go negative). */
  sendWindow: number;
  /** Body bytes received and not yet given back to the client's window. */
  receivedUnacknowledged = 0;
  /** The client has ended its side (END_STREAM). */
  remoteEnded = false;
  /** We have ended our side, or queued the trailers that will. */
  localEnded = false;
  headersSent = false;
  closed = false;
  /** Response bytes waiting for window, oldest first; the first one from `pendingOffset`. */
  readonly pending: Uint8Array[] = [];
  pendingOffset = 0;
  pendingBytes = 0;
  /** Trailers to send once the pending bytes are out. */
  pendingTrailers: Uint8Array | undefined;
  /** A write returned false: `drain` is owed once the pending bytes are out. */
  needsDrain = false;
  /** The request's content-length, or -1 without one. */
  declaredLength = -1;
  /** Request body bytes received so far (without padding). */
  receivedBodyBytes = 0;

  constructor(id: number, headers: readonly string[], sendWindow: number, sender: StreamSender) {
    this.id = id;
    this.headers = headers;
    this.sendWindow = sendWindow;
    this.#sender = sender;
  }

  /** The value of the first field called `name`, if any. */
  header(name: string): string | undefined {
    const fields = this.headers;
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
    return undefined;
  }

  /** Starts delivering the request body (and what came before this call). */
  listen(listener: StreamListener): void {
    this.#listener = listener;
    const early = this.#early;
    this.#early = undefined;
    if (early !== undefined) for (const chunk of early) listener.data(chunk);
    if (this.#endPending && !this.closed) {
      this.#endPending = false;
      listener.end();
    }
  }

  /** Runs `listener` once when the stream closes, however it closes. */
  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.#closeListeners.push(listener);
  }

  /** Runs `listener` once, after a `write` that returned false, when the bytes are out. */
  onceDrain(listener: () => void): void {
    this.#drainListeners.push(listener);
  }

  /** Sends the response headers; `endStream` makes them the whole response. */
  respond(block: Uint8Array, endStream: boolean): void {
    if (this.closed || this.headersSent) return;
    this.headersSent = true;
    this.#sender.sendHeaders(this, block, endStream);
  }

  /** Queues body bytes; false when they could not all go out yet (wait for drain). */
  write(data: Uint8Array): boolean {
    if (this.closed || this.localEnded) return true;
    this.#sender.sendData(this, data);
    if (this.pendingBytes === 0) return true;
    this.needsDrain = true;
    return false;
  }

  /** Ends the response after any body bytes still queued, with trailers if given. */
  end(trailers?: Uint8Array): void {
    if (this.closed || this.localEnded) return;
    this.#sender.sendTrailers(this, trailers);
  }

  /** Abandons the stream with RST_STREAM. */
  reset(code: ErrorCode): void {
    if (!this.closed) this.#sender.reset(this, code);
  }

  /** Called by the connection. */
  received(chunk: Buffer): void {
    const listener = this.#listener;
    if (listener !== undefined) listener.data(chunk);
    else if (this.#early === undefined) this.#early = [chunk];
    else this.#early.push(chunk);
  }

  /** Called by the connection when END_STREAM arrives (once). */
  receivedEnd(): void {
    this.remoteEnded = true;
    if (this.#listener !== undefined) this.#listener.end();
    else this.#endPending = true;
  }

  /** Called by the connection when the queued bytes are out. */
  drained(): void {
    this.needsDrain = false;
    for (const listener of this.#drainListeners.splice(0)) listener();
  }

  /** Called by the connection, once. */
  closedNow(): void {
    this.closed = true;
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.pendingTrailers = undefined;
    this.#drainListeners.length = 0;
    for (const listener of this.#closeListeners.splice(0)) listener();
  }
}
