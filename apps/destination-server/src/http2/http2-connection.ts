import type { Socket } from "node:net";
import { ClosedStreams, type StreamClosing } from "./closed-streams.js";
import { FrameReader } from "./frame-reader.js";
import {
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW_SIZE,
  ErrorCode,
  Flag,
  FRAME_HEADER_BYTES,
  FrameType,
  MAX_FRAME_SIZE_LIMIT,
  MAX_WINDOW_SIZE,
  Setting,
} from "./frame-types.js";
import {
  frame,
  goawayFrame,
  rstStreamFrame,
  settingsFrame,
  windowUpdateFrame,
  writeFrameHeader,
} from "./frame-writer.js";
import { HpackDecoder } from "./hpack-decoder.js";
import { encodeHeaderBlock } from "./hpack-encoder.js";
import { HeaderListTooLargeError, HpackError } from "./hpack-error.js";
import { ConnectionError, StreamError } from "./http2-errors.js";
import { Http2ServerStream, type StreamSender } from "./http2-stream.js";

export interface Http2ConnectionOptions {
  /** Streams a client may have open at once; 0: no limit of ours. */
  readonly maxConcurrentStreams: number;
  /** A new request stream, with its header fields. */
  onStream(stream: Http2ServerStream): void;
  /** A PING from the client; false sends it away (GOAWAY ENHANCE_YOUR_CALM, too_many_pings). */
  onPing(): boolean;
  /** The connection is closed, its streams with it. */
  onClose(): void;
  /** A fault that ended a stream or the connection, for the log. */
  onError(err: Error): void;
}

/** The receive window of the whole connection: room for many requests in flight. */
const CONNECTION_WINDOW = 1024 * 1024;
/** Largest request header list accepted (fields' bytes + 32 each, as RFC 7541 counts them). */
const MAX_HEADER_LIST_SIZE = 64 * 1024;
/** Largest header block with its CONTINUATION frames; past it the client is sent away. */
const MAX_HEADER_BLOCK_BYTES = 256 * 1024;
/** Responses a client may leave unread while it goes on sending before it is cut off. */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
/** Bodies up to this size are copied behind their frame header: one write instead of two. */
const COPY_BELOW_BYTES = 4096;
/** Recently closed streams whose closing is remembered, for frames that arrive late. */
const REMEMBERED_CLOSED_STREAMS = 1024;
/** Marks a stream to end with an empty DATA frame (END_STREAM) rather than trailers. */
const END_WITHOUT_TRAILERS = new Uint8Array(0);
/** HEADERS response of an oversized request header list. */
const HEADERS_TOO_LARGE = encodeHeaderBlock([[":status", "431"]]);

/**
 * One client connection of the gRPC server, speaking HTTP/2 (RFC 9113) over a plaintext socket:
 * frames in, request streams to `onStream`, responses out under the client's flow-control
 * windows. Our own rather than node:http2's: there every stream was a Duplex with its own
 * header objects and several callbacks into JavaScript, about two thirds of a cold Get's
 * transport cost. Bytes written in one turn of the event loop go out in one socket write.
 */
export class Http2Connection implements StreamSender {
  readonly #socket: Socket;
  readonly #options: Http2ConnectionOptions;
  readonly #reader = new FrameReader(DEFAULT_MAX_FRAME_SIZE);
  readonly #decoder = new HpackDecoder();
  readonly #streams = new Map<number, Http2ServerStream>();
  readonly #closedStreams = new ClosedStreams(REMEMBERED_CLOSED_STREAMS);
  /** Highest stream the client has opened and we took on: what our GOAWAY names. */
  #lastStreamId = 0;
  /** Highest stream the client has opened, taken on or not (after GOAWAY, not). */
  #highestStreamId = 0;
  #settingsSeen = false;
  /** A header block waiting for its CONTINUATION frames. */
  #headerBlock:
    | {
        streamId: number;
        endStream: boolean;
        dependsOnItself: boolean;
        parts: Buffer[];
        bytes: number;
      }
    | undefined;
  #peerInitialWindow = DEFAULT_WINDOW_SIZE;
  #peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
  /** What the client still lets us send on the connection as a whole. */
  #sendWindow = DEFAULT_WINDOW_SIZE;
  #receivedUnacknowledged = 0;
  /** Streams with bytes waiting for the connection's window or the socket, in arrival order. */
  readonly #waiting = new Set<Http2ServerStream>();
  /** The socket's buffer is over its high-water mark: body bytes wait until it drains. */
  #socketFull = false;
  /** Bytes written this turn, not yet handed to the socket. */
  #out: Uint8Array[] = [];
  #outBytes = 0;
  #flushScheduled = false;
  /** GOAWAY sent: no new streams; the socket ends with the last stream. */
  #goingAway = false;
  #closed = false;

  constructor(socket: Socket, options: Http2ConnectionOptions) {
    this.#socket = socket;
    this.#options = options;
    socket.setNoDelay(true);
    const settings = new Map<number, number>([
      [Setting.MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST_SIZE],
    ]);
    if (options.maxConcurrentStreams > 0) {
      settings.set(Setting.MAX_CONCURRENT_STREAMS, options.maxConcurrentStreams);
    }
    this.#write(settingsFrame(settings));
    this.#write(windowUpdateFrame(0, CONNECTION_WINDOW - DEFAULT_WINDOW_SIZE));
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("drain", () => this.#onSocketDrain());
    socket.on("error", (err) => options.onError(err));
    socket.once("close", () => this.#onSocketClose());
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Sends GOAWAY and lets the open streams finish; the socket ends after the last one. */
  close(): void {
    if (this.#closed || this.#goingAway) return;
    this.#goingAway = true;
    this.#write(goawayFrame(this.#lastStreamId, ErrorCode.NO_ERROR));
    if (this.#streams.size === 0) this.#endSocket();
  }

  /** Closes the socket now; open streams close with it. */
  destroy(): void {
    this.#socket.destroy();
  }

  // StreamSender

  sendHeaders(stream: Http2ServerStream, block: Uint8Array, endStream: boolean): void {
    this.#writeHeaderBlock(stream.id, block, endStream);
    if (endStream) this.#endedLocally(stream);
  }

  sendData(stream: Http2ServerStream, data: Uint8Array): void {
    if (data.length === 0) return;
    stream.pending.push(data);
    stream.pendingBytes += data.length;
    this.#flush(stream);
  }

  sendTrailers(stream: Http2ServerStream, block: Uint8Array | undefined): void {
    stream.localEnded = true;
    stream.pendingTrailers = block ?? END_WITHOUT_TRAILERS;
    this.#flush(stream);
  }

  reset(stream: Http2ServerStream, code: ErrorCode): void {
    this.#write(rstStreamFrame(stream.id, code));
    this.#closeStream(stream, "reset-by-us");
  }

  // Receiving

  #onData(chunk: Buffer): void {
    // Body bytes wait while the socket is full, so only answers to the client's own frames
    // (headers, acks, resets) can pile up here: a client that sends without reading.
    if (this.#socket.writableLength + this.#outBytes > MAX_UNREAD_BYTES) {
      this.#options.onError(new Error("client sends but does not read its responses"));
      this.#reader.stop();
      this.#socket.destroy();
      return;
    }
    try {
      this.#reader.push(chunk, this.#onFrame);
    } catch (err) {
      if (err instanceof ConnectionError) this.#fail(err);
      else this.#fail(new ConnectionError(ErrorCode.INTERNAL_ERROR, messageOf(err)));
    }
  }

  readonly #onFrame = (type: number, flags: number, streamId: number, payload: Buffer): void => {
    if (this.#headerBlock !== undefined && type !== FrameType.CONTINUATION) {
      throw new ConnectionError(
        ErrorCode.PROTOCOL_ERROR,
        "header block interrupted by another frame",
      );
    }
    if (!this.#settingsSeen && (type !== FrameType.SETTINGS || (flags & Flag.ACK) !== 0)) {
      throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "the first frame was not SETTINGS");
    }
    try {
      switch (type) {
        case FrameType.DATA:
          this.#onDataFrame(flags, streamId, payload);
          break;
        case FrameType.HEADERS:
          this.#onHeadersFrame(flags, streamId, payload);
          break;
        case FrameType.CONTINUATION:
          this.#onContinuation(flags, streamId, payload);
          break;
        case FrameType.PRIORITY:
          if (streamId === 0) throw protocolError("PRIORITY on stream 0");
          if (payload.length !== 5) {
            throw new StreamError(streamId, ErrorCode.FRAME_SIZE_ERROR, "PRIORITY frame size");
          }
          if (dependency(payload) === streamId) {
            throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, "stream depends on itself");
          }
          break;
        case FrameType.RST_STREAM:
          this.#onRstStream(streamId, payload);
          break;
        case FrameType.SETTINGS:
          this.#onSettings(flags, streamId, payload);
          break;
        case FrameType.PUSH_PROMISE:
          throw protocolError("a client sent PUSH_PROMISE");
        case FrameType.PING:
          this.#onPing(flags, streamId, payload);
          break;
        case FrameType.GOAWAY:
          if (streamId !== 0) throw protocolError("GOAWAY on a stream");
          break;
        case FrameType.WINDOW_UPDATE:
          this.#onWindowUpdate(streamId, payload);
          break;
        default:
          // Unknown frame types are ignored (RFC 9113 section 4.1).
          break;
      }
    } catch (err) {
      if (!(err instanceof StreamError)) throw err;
      this.#options.onError(err);
      this.#write(rstStreamFrame(err.streamId, err.code));
      const stream = this.#streams.get(err.streamId);
      if (stream !== undefined) this.#closeStream(stream, "reset-by-us");
      else this.#closedStreams.note(err.streamId, "reset-by-us");
    }
  };

  #onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw protocolError("DATA on stream 0");
    const length = payload.length;
    // Padding and all count against the connection's window, whatever becomes of the stream.
    this.#receivedUnacknowledged += length;
    if (this.#receivedUnacknowledged > CONNECTION_WINDOW) {
      throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "DATA beyond the connection window");
    }
    if (this.#receivedUnacknowledged >= CONNECTION_WINDOW / 2) {
      this.#write(windowUpdateFrame(0, this.#receivedUnacknowledged));
      this.#receivedUnacknowledged = 0;
    }
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      if (streamId > this.#highestStreamId) throw protocolError("DATA on a stream never opened");
      // After our RST_STREAM, what the client sent before it learnt of it is dropped.
      if (this.#closedStreams.closing(streamId) === "reset-by-us") return;
      throw new StreamError(streamId, ErrorCode.STREAM_CLOSED, "DATA on a closed stream");
    }
    if (stream.remoteEnded) {
      throw new StreamError(streamId, ErrorCode.STREAM_CLOSED, "DATA after END_STREAM");
    }
    stream.receivedUnacknowledged += length;
    if (stream.receivedUnacknowledged > DEFAULT_WINDOW_SIZE) {
      throw new StreamError(
        streamId,
        ErrorCode.FLOW_CONTROL_ERROR,
        "DATA beyond the stream window",
      );
    }
    const body = unpadded(flags, payload);
    const endStream = (flags & Flag.END_STREAM) !== 0;
    stream.receivedBodyBytes += body.length;
    const lengthProblem = bodyLengthProblem(stream, endStream);
    if (lengthProblem !== undefined) {
      throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, lengthProblem);
    }
    // The body is consumed as it arrives (messages are bounded by the call), so the window is
    // given back at once, in batches.
    if (!endStream && stream.receivedUnacknowledged >= DEFAULT_WINDOW_SIZE / 2) {
      this.#write(windowUpdateFrame(streamId, stream.receivedUnacknowledged));
      stream.receivedUnacknowledged = 0;
    }
    if (body.length > 0) this.#deliver(stream, () => stream.received(body));
    if (endStream && !stream.closed) this.#endedRemotely(stream);
  }

  #onHeadersFrame(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw protocolError("HEADERS on stream 0");
    let fragment = unpadded(flags, payload);
    let dependsOnItself = false;
    if ((flags & Flag.PRIORITY) !== 0) {
      if (fragment.length < 5) {
        throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "HEADERS size");
      }
      dependsOnItself = dependency(fragment) === streamId;
      fragment = fragment.subarray(5);
    }
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if ((flags & Flag.END_HEADERS) !== 0) {
      this.#onHeaderBlock(streamId, endStream, dependsOnItself, fragment);
      return;
    }
    this.#headerBlock = {
      streamId,
      endStream,
      dependsOnItself,
      parts: [fragment],
      bytes: fragment.length,
    };
  }

  #onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const block = this.#headerBlock;
    if (block === undefined || block.streamId !== streamId) {
      throw protocolError("CONTINUATION without the HEADERS it continues");
    }
    block.parts.push(payload);
    block.bytes += payload.length;
    if (block.bytes > MAX_HEADER_BLOCK_BYTES) {
      throw new ConnectionError(ErrorCode.ENHANCE_YOUR_CALM, "header block too large");
    }
    if ((flags & Flag.END_HEADERS) === 0) return;
    this.#headerBlock = undefined;
    const whole = Buffer.concat(block.parts, block.bytes);
    this.#onHeaderBlock(streamId, block.endStream, block.dependsOnItself, whole);
  }

  #onHeaderBlock(
    streamId: number,
    endStream: boolean,
    dependsOnItself: boolean,
    block: Buffer,
  ): void {
    let fields: string[] | undefined;
    try {
      fields = this.#decoder.decode(block, MAX_HEADER_LIST_SIZE);
    } catch (err) {
      // The block is decoded to its end either way, so the table stays in step with the client's.
      if (err instanceof HeaderListTooLargeError) fields = undefined;
      else if (err instanceof HpackError) {
        throw new ConnectionError(ErrorCode.COMPRESSION_ERROR, err.message);
      } else throw err;
    }
    const known = this.#streams.get(streamId);
    if (known !== undefined) {
      // Trailers of the request.
      if (known.remoteEnded) {
        throw new StreamError(streamId, ErrorCode.STREAM_CLOSED, "HEADERS after the stream ended");
      }
      const problem = trailersProblem(fields, endStream) ?? bodyLengthProblem(known, true);
      if (problem !== undefined) throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, problem);
      this.#endedRemotely(known);
      return;
    }
    if (streamId <= this.#highestStreamId) {
      // After our RST_STREAM, trailers the client sent before it learnt of it are dropped (the
      // block is decoded above); on a stream that closed otherwise they are an error, and on a
      // lower stream that was never opened the client broke the protocol.
      const closing = this.#closedStreams.closing(streamId);
      if (closing === "reset-by-us") return;
      if (closing === "closed") {
        throw new ConnectionError(ErrorCode.STREAM_CLOSED, "HEADERS on a closed stream");
      }
      throw protocolError("a client opened a stream below one it had opened");
    }
    if (streamId % 2 === 0) throw protocolError("a client opened an even-numbered stream");
    this.#highestStreamId = streamId;
    // Streams that reach us after our GOAWAY are not served; the client retries them elsewhere.
    if (this.#goingAway) return;
    this.#lastStreamId = streamId;
    const max = this.#options.maxConcurrentStreams;
    if (max > 0 && this.#streams.size >= max) {
      throw new StreamError(streamId, ErrorCode.REFUSED_STREAM, "too many concurrent streams");
    }
    const stream = new Http2ServerStream(streamId, fields ?? [], this.#peerInitialWindow, this);
    this.#streams.set(streamId, stream);
    if (fields === undefined) {
      stream.respond(HEADERS_TOO_LARGE, true);
      return;
    }
    const problem = dependsOnItself ? "stream depends on itself" : requestProblem(fields);
    if (problem !== undefined) throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, problem);
    const declared = stream.header("content-length");
    if (declared !== undefined) {
      if (!/^[0-9]{1,15}$/.test(declared)) {
        throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, "content-length not a number");
      }
      stream.declaredLength = Number(declared);
      const lengthProblem = bodyLengthProblem(stream, endStream);
      if (lengthProblem !== undefined) {
        throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, lengthProblem);
      }
    }
    // Marked before the handler runs: a response it completes at once needs no RST_STREAM.
    if (endStream) stream.remoteEnded = true;
    this.#deliver(stream, () => this.#options.onStream(stream));
    if (endStream && !stream.closed) this.#endedRemotely(stream);
  }

  #onRstStream(streamId: number, payload: Buffer): void {
    if (streamId === 0) throw protocolError("RST_STREAM on stream 0");
    if (payload.length !== 4)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM size");
    if (streamId > this.#highestStreamId) {
      throw protocolError("RST_STREAM on a stream never opened");
    }
    const stream = this.#streams.get(streamId);
    if (stream !== undefined) this.#closeStream(stream, "closed");
  }

  #onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw protocolError("SETTINGS on a stream");
    if ((flags & Flag.ACK) !== 0) {
      if (payload.length !== 0)
        throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS ack with a payload");
      return;
    }
    if (payload.length % 6 !== 0)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS size");
    this.#settingsSeen = true;
    let windowChanged = false;
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      switch (id) {
        case Setting.ENABLE_PUSH:
          if (value > 1) throw protocolError("ENABLE_PUSH neither 0 nor 1");
          break;
        case Setting.INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW_SIZE) {
            throw new ConnectionError(
              ErrorCode.FLOW_CONTROL_ERROR,
              "INITIAL_WINDOW_SIZE too large",
            );
          }
          const delta = value - this.#peerInitialWindow;
          this.#peerInitialWindow = value;
          for (const stream of this.#streams.values()) {
            stream.sendWindow += delta;
            if (stream.sendWindow > MAX_WINDOW_SIZE) {
              throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "stream window overflow");
            }
          }
          windowChanged = delta > 0;
          break;
        }
        case Setting.MAX_FRAME_SIZE:
          if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_FRAME_SIZE_LIMIT) {
            throw protocolError("MAX_FRAME_SIZE out of range");
          }
          this.#peerMaxFrameSize = value;
          break;
        default:
          // HEADER_TABLE_SIZE binds only an encoder that indexes, and ours never does;
          // MAX_CONCURRENT_STREAMS binds pushes, which we never make; the rest are advisory.
          break;
      }
    }
    this.#write(frame(FrameType.SETTINGS, Flag.ACK, 0));
    if (windowChanged) for (const stream of this.#streams.values()) this.#flush(stream);
  }

  #onPing(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw protocolError("PING on a stream");
    if (payload.length !== 8) throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "PING size");
    if ((flags & Flag.ACK) !== 0) return;
    if (!this.#options.onPing()) {
      this.#fail(new ConnectionError(ErrorCode.ENHANCE_YOUR_CALM, "too_many_pings"));
      return;
    }
    this.#write(frame(FrameType.PING, Flag.ACK, 0, payload));
  }

  #onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4)
      throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE size");
    const increment = payload.readUInt32BE(0) & 0x7fff_ffff;
    if (streamId === 0) {
      if (increment === 0) throw protocolError("WINDOW_UPDATE of 0 on the connection");
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW_SIZE) {
        throw new ConnectionError(ErrorCode.FLOW_CONTROL_ERROR, "connection window overflow");
      }
      this.#flushWaiting();
      return;
    }
    if (streamId > this.#highestStreamId) {
      throw protocolError("WINDOW_UPDATE on a stream never opened");
    }
    if (increment === 0) {
      throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, "WINDOW_UPDATE of 0");
    }
    // On a closed stream it may follow the client's END_STREAM or cross our close: not an error.
    const stream = this.#streams.get(streamId);
    if (stream === undefined) return;
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW_SIZE) {
      throw new StreamError(streamId, ErrorCode.FLOW_CONTROL_ERROR, "stream window overflow");
    }
    this.#flush(stream);
  }

  /** Runs the server's code for a stream; what it throws ends that stream, not the connection. */
  #deliver(stream: Http2ServerStream, run: () => void): void {
    try {
      run();
    } catch (err) {
      this.#options.onError(err instanceof Error ? err : new Error(String(err)));
      if (!stream.closed) this.reset(stream, ErrorCode.INTERNAL_ERROR);
    }
  }

  #endedRemotely(stream: Http2ServerStream): void {
    this.#deliver(stream, () => stream.receivedEnd());
  }

  // Sending

  /** Our side is done: the stream closes, and a client still sending is told to stop. */
  #endedLocally(stream: Http2ServerStream): void {
    stream.localEnded = true;
    // RFC 9113 section 8.1: a complete response may end the request with RST_STREAM NO_ERROR.
    if (stream.remoteEnded) {
      this.#closeStream(stream, "closed");
      return;
    }
    this.#write(rstStreamFrame(stream.id, ErrorCode.NO_ERROR));
    this.#closeStream(stream, "reset-by-us");
  }

  /** Moves as much of the stream's queue out as the windows and the socket allow. */
  #flush(stream: Http2ServerStream): void {
    while (stream.pendingBytes > 0) {
      if (this.#socketFull || this.#sendWindow <= 0) {
        this.#waiting.add(stream);
        return;
      }
      const chunk = stream.pending[0] as Uint8Array;
      const offset = stream.pendingOffset;
      const size = Math.min(
        chunk.length - offset,
        stream.sendWindow,
        this.#sendWindow,
        this.#peerMaxFrameSize,
      );
      // The stream's own window: the client's WINDOW_UPDATE on it resumes it.
      if (size <= 0) return;
      this.#writeData(stream.id, chunk, offset, size);
      stream.sendWindow -= size;
      this.#sendWindow -= size;
      stream.pendingBytes -= size;
      if (offset + size === chunk.length) {
        stream.pending.shift();
        stream.pendingOffset = 0;
      } else stream.pendingOffset = offset + size;
    }
    if (stream.needsDrain) stream.drained();
    const trailers = stream.pendingTrailers;
    if (trailers !== undefined && !stream.closed && stream.pendingBytes === 0) {
      stream.pendingTrailers = undefined;
      if (trailers === END_WITHOUT_TRAILERS) {
        this.#write(frame(FrameType.DATA, Flag.END_STREAM, stream.id));
      } else this.#writeHeaderBlock(stream.id, trailers, true);
      this.#endedLocally(stream);
    }
  }

  #writeData(streamId: number, chunk: Uint8Array, offset: number, size: number): void {
    if (size < COPY_BELOW_BYTES) {
      this.#write(frame(FrameType.DATA, 0, streamId, chunk.subarray(offset, offset + size)));
      return;
    }
    const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
    writeFrameHeader(header, 0, size, FrameType.DATA, 0, streamId);
    this.#write(header);
    this.#write(chunk.subarray(offset, offset + size));
  }

  /** HEADERS, and CONTINUATION frames when the block is larger than the client's frames. */
  #writeHeaderBlock(streamId: number, block: Uint8Array, endStream: boolean): void {
    const max = this.#peerMaxFrameSize;
    const endFlag = endStream ? Flag.END_STREAM : 0;
    if (block.length <= max) {
      this.#write(frame(FrameType.HEADERS, endFlag | Flag.END_HEADERS, streamId, block));
      return;
    }
    for (let at = 0; at < block.length; at += max) {
      const last = at + max >= block.length;
      const type = at === 0 ? FrameType.HEADERS : FrameType.CONTINUATION;
      const flags = (at === 0 ? endFlag : 0) | (last ? Flag.END_HEADERS : 0);
      this.#write(frame(type, flags, streamId, block.subarray(at, at + max)));
    }
  }

  /**
   * Queues bytes for the socket. They go out as one buffer after the event loop has handled
   * everything that was readable (setImmediate, not nextTick): the answers to all the requests
   * a client had sent by then share one write.
   */
  #write(bytes: Uint8Array): void {
    if (this.#closed) return;
    this.#out.push(bytes);
    this.#outBytes += bytes.length;
    if (this.#outBytes + this.#socket.writableLength >= this.#socket.writableHighWaterMark) {
      this.#socketFull = true;
    }
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flushOut);
    }
  }

  readonly #flushOut = (): void => {
    this.#flushScheduled = false;
    const out = this.#out;
    if (out.length === 0 || this.#closed) return;
    const bytes = out.length === 1 ? (out[0] as Uint8Array) : Buffer.concat(out, this.#outBytes);
    this.#out = [];
    this.#outBytes = 0;
    if (!this.#socket.write(bytes)) {
      this.#socketFull = true;
      return;
    }
    // Full only by what this turn queued, and the socket took it all: no drain will come.
    if (this.#socketFull) this.#onSocketDrain();
  };

  #onSocketDrain(): void {
    this.#socketFull = false;
    this.#flushWaiting();
  }

  /** Resumes the streams waiting for the connection's window or the socket, oldest first. */
  #flushWaiting(): void {
    for (const stream of this.#waiting) {
      this.#waiting.delete(stream);
      this.#flush(stream);
      if (this.#socketFull || this.#sendWindow <= 0) break;
    }
  }

  // Closing

  #closeStream(stream: Http2ServerStream, closing: StreamClosing): void {
    if (stream.closed) return;
    this.#closedStreams.note(stream.id, closing);
    this.#streams.delete(stream.id);
    this.#waiting.delete(stream);
    stream.closedNow();
    if (this.#goingAway && this.#streams.size === 0) this.#endSocket();
  }

  /** A connection error: GOAWAY with its code, then the socket ends. */
  #fail(err: ConnectionError): void {
    if (this.#closed) return;
    this.#options.onError(err);
    this.#reader.stop();
    // What was queued this turn is dropped: the client is to see the GOAWAY first, and stream
    // answers after it would not count anyway.
    this.#out = [];
    this.#outBytes = 0;
    this.#write(goawayFrame(this.#lastStreamId, err.code, err.message));
    this.#endSocket();
  }

  #endSocket(): void {
    if (this.#closed) return;
    this.#reader.stop();
    this.#flushOut();
    this.#socket.end();
    this.#closeAll();
  }

  #onSocketClose(): void {
    this.#reader.stop();
    this.#closeAll();
    this.#options.onClose();
  }

  #closeAll(): void {
    this.#closed = true;
    this.#waiting.clear();
    for (const stream of [...this.#streams.values()]) {
      this.#streams.delete(stream.id);
      stream.closedNow();
    }
  }
}

/** The stream a PRIORITY payload (or HEADERS priority fields) says this one depends on. */
function dependency(priority: Buffer): number {
  return priority.readUInt32BE(0) & 0x7fff_ffff;
}

/** Why a request's trailers are malformed, if they are. */
function trailersProblem(
  fields: readonly string[] | undefined,
  endStream: boolean,
): string | undefined {
  if (!endStream) return "trailers without END_STREAM";
  const names = fields ?? [];
  for (let i = 0; i < names.length; i += 2) {
    if ((names[i] as string).charCodeAt(0) === 58 /* : */) return "pseudo-header in trailers";
  }
  return undefined;
}

/**
 * Why the request body received so far cannot be what its content-length said: more than it,
 * or, once the body has `ended`, other than it.
 */
function bodyLengthProblem(stream: Http2ServerStream, ended: boolean): string | undefined {
  const declared = stream.declaredLength;
  if (declared < 0) return undefined;
  const received = stream.receivedBodyBytes;
  return received > declared || (ended && received !== declared)
    ? "body length is not content-length"
    : undefined;
}

function protocolError(message: string): ConnectionError {
  return new ConnectionError(ErrorCode.PROTOCOL_ERROR, message);
}

/** A DATA or HEADERS payload without its padding. */
function unpadded(flags: number, payload: Buffer): Buffer {
  if ((flags & Flag.PADDED) === 0) return payload;
  const padding = payload[0];
  if (padding === undefined || padding >= payload.length)
    throw protocolError("padding longer than the frame");
  return payload.subarray(1, payload.length - padding);
}

/** Fields that belong to HTTP/1.1 connections and make an HTTP/2 request malformed. */
const CONNECTION_FIELDS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/** Why a request's header fields are malformed (RFC 9113 section 8.2, section 8.3), if they are. */
function requestProblem(fields: readonly string[]): string | undefined {
  let method = false;
  let scheme = false;
  let path = false;
  let regularSeen = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = fields[i + 1] as string;
    if (name.charCodeAt(0) === 58 /* : */) {
      if (regularSeen) return `pseudo-header ${name} after regular fields`;
      if (name === ":method") {
        if (method) return ":method twice";
        method = true;
      } else if (name === ":scheme") {
        if (scheme) return ":scheme twice";
        scheme = true;
      } else if (name === ":path") {
        if (path) return ":path twice";
        if (value.length === 0) return "empty :path";
        path = true;
      } else if (name !== ":authority") return `unknown pseudo-header ${name}`;
      continue;
    }
    regularSeen = true;
    if (hasUpperCase(name)) return `upper-case field name ${name}`;
    if (CONNECTION_FIELDS.has(name)) return `connection-specific field ${name}`;
    if (name === "te" && value !== "trailers") return `te: ${value}`;
  }
  if (!method) return "no :method";
  if (!scheme) return "no :scheme";
  if (!path) return "no :path";
  return undefined;
}

function hasUpperCase(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
