import { once } from "node:events";
import * as http2 from "node:http2";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_PREFACE, ErrorCode, Flag, FrameType } from "./frame-types.js";
import { frame, settingsFrame, windowUpdateFrame } from "./frame-writer.js";
import { encodeHeaderBlock } from "./hpack-encoder.js";
import { Http2Connection, type Http2ConnectionOptions } from "./http2-connection.js";
import type { Http2ServerStream } from "./http2-stream.js";

const OK_HEADERS = encodeHeaderBlock([[":status", "200"]]);
const trailers = (fields: [string, string][]) => encodeHeaderBlock(fields);

interface Harness {
  port: number;
  connections: Http2Connection[];
  errors: Error[];
}

const servers: Server[] = [];
const clients: http2.ClientHttp2Session[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) {
    s.close();
    s.unref();
  }
});

async function serve(
  onStream: (stream: Http2ServerStream) => void,
  options: Partial<Http2ConnectionOptions> = {},
): Promise<Harness> {
  const harness: Harness = { port: 0, connections: [], errors: [] };
  const server = createServer((socket) => {
    harness.connections.push(
      new Http2Connection(socket, {
        maxConcurrentStreams: 0,
        onStream,
        onPing: () => true,
        onClose: () => {},
        onError: (err) => harness.errors.push(err),
        ...options,
      }),
    );
  });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  harness.port = (server.address() as AddressInfo).port;
  return harness;
}

function client(port: number, settings: http2.Settings = {}): http2.ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`, { settings });
  session.on("error", () => {});
  clients.push(session);
  return session;
}

/** A request's response: its headers, body, trailers, and how the stream ended. */
async function exchange(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  body?: Buffer | Buffer[],
): Promise<{
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  trailers: http2.IncomingHttpHeaders | undefined;
  rstCode: number;
}> {
  const req = session.request({ ":method": "POST", ":path": "/x", ...headers });
  req.on("error", () => {});
  let responseHeaders: http2.IncomingHttpHeaders = {};
  let responseTrailers: http2.IncomingHttpHeaders | undefined;
  const chunks: Buffer[] = [];
  req.on("response", (h) => {
    responseHeaders = h;
  });
  req.on("trailers", (t) => {
    responseTrailers = t;
  });
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  for (const part of Array.isArray(body) ? body : body ? [body] : []) req.write(part);
  req.end();
  await once(req, "close");
  return {
    headers: responseHeaders,
    body: Buffer.concat(chunks),
    trailers: responseTrailers,
    rstCode: req.rstCode ?? 0,
  };
}

/** Reads a raw HTTP/2 byte stream from the server as frames. */
function rawClient(port: number): {
  socket: Socket;
  frames: { type: number; flags: number; streamId: number; payload: Buffer }[];
  closed: Promise<void>;
  send(bytes: Buffer): void;
} {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  const frames: { type: number; flags: number; streamId: number; payload: Buffer }[] = [];
  let buffered = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 9) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < 9 + length) break;
      frames.push({
        type: buffered[3] as number,
        flags: buffered[4] as number,
        streamId: buffered.readUInt32BE(5) & 0x7fffffff,
        payload: buffered.subarray(9, 9 + length),
      });
      buffered = buffered.subarray(9 + length);
    }
  });
  socket.on("error", () => {});
  // Not events.once: that rejects on the 'error' a reset socket emits before 'close'.
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, frames, closed, send: (bytes) => socket.write(bytes) };
}

function goawayOf(frames: { type: number; payload: Buffer }[]) {
  const goaway = frames.find((f) => f.type === FrameType.GOAWAY);
  if (goaway === undefined) return undefined;
  return {
    lastStreamId: goaway.payload.readUInt32BE(0),
    code: goaway.payload.readUInt32BE(4),
    debug: goaway.payload.subarray(8).toString(),
  };
}

const requestBlock = (path = "/x") =>
  encodeHeaderBlock([
    [":method", "POST"],
    [":scheme", "http"],
    [":path", path],
    [":authority", "test"],
  ]);

/** A raw client that has sent its preface and SETTINGS. */
function handshaken(port: number) {
  const raw = rawClient(port);
  raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
  return raw;
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("Http2Connection", () => {
  it("serves a request to node's HTTP/2 client: headers, body both ways, trailers", async () => {
    const { port } = await serve((stream) => {
      const received: Buffer[] = [];
      stream.listen({
        data: (chunk) => received.push(chunk),
        end: () => {
          stream.respond(OK_HEADERS, false);
          stream.write(Buffer.from(`path ${stream.header(":path")} `));
          stream.write(Buffer.concat(received));
          stream.end(trailers([["grpc-status", "0"]]));
        },
      });
    });
    const result = await exchange(client(port), { ":path": "/echo" }, [
      Buffer.from("one "),
      Buffer.from("two"),
    ]);
    expect(result.headers[":status"]).toBe(200);
    expect(result.body.toString()).toBe("path /echo one two");
    expect(result.trailers?.["grpc-status"]).toBe("0");
    expect(result.rstCode).toBe(ErrorCode.NO_ERROR);
  });

  it("sends no more than the client's windows allow, and drains as they reopen", async () => {
    const body = Buffer.alloc(300_000, 7);
    let wrote: boolean | undefined;
    let drained = false;
    const { port } = await serve((stream) => {
      stream.listen({
        data: () => {},
        end: () => {
          stream.respond(OK_HEADERS, false);
          wrote = stream.write(body);
          stream.onceDrain(() => {
            drained = true;
          });
          stream.end(trailers([["grpc-status", "0"]]));
        },
      });
    });
    // A tiny stream window: the server must wait for WINDOW_UPDATE after every 1,000 bytes.
    const result = await exchange(client(port, { initialWindowSize: 1000 }), {});
    expect(wrote).toBe(false);
    expect(drained).toBe(true);
    expect(result.body.equals(body)).toBe(true);
    expect(result.trailers?.["grpc-status"]).toBe("0");
  });

  it("applies a change of the client's initial window to streams already open", async () => {
    const { port } = await serve((stream) =>
      stream.listen({
        data: () => {},
        end: () => {
          stream.respond(OK_HEADERS, false);
          stream.write(Buffer.alloc(100, 1));
        },
      }),
    );
    const raw = rawClient(port);
    const initialWindow = (size: number) => settingsFrame(new Map([[0x4, size]]));
    raw.send(Buffer.concat([CLIENT_PREFACE, initialWindow(10)]));
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, requestBlock()));
    const body = () =>
      raw.frames.filter((f) => f.type === FrameType.DATA).reduce((n, f) => n + f.payload.length, 0);
    await until(() => body() === 10);
    // Raising the initial window by 990 gives the open stream 990 more: the other 90 bytes go.
    raw.send(initialWindow(1000));
    await until(() => body() === 100);
    expect(
      raw.frames.filter((f) => f.type === FrameType.DATA).map((f) => f.payload.length),
    ).toEqual([10, 90]);
  });

  it("splits header blocks larger than a frame into CONTINUATION frames, both ways", async () => {
    const long = "m".repeat(40_000);
    const { port } = await serve((stream) => {
      stream.listen({
        data: () => {},
        end: () => {
          stream.respond(OK_HEADERS, false);
          stream.end(
            trailers([
              ["grpc-status", "2"],
              ["grpc-message", `${stream.header("x-long")?.length} ${long}`],
            ]),
          );
        },
      });
    });
    const result = await exchange(client(port), { "x-long": "h".repeat(30_000) });
    expect(result.trailers?.["grpc-message"]).toBe(`30000 ${long}`);
  });

  it("closes a stream the client resets, and runs its close listeners once", async () => {
    let closes = 0;
    let stream: Http2ServerStream | undefined;
    const { port } = await serve((s) => {
      stream = s;
      s.onClose(() => closes++);
      s.listen({ data: () => {}, end: () => s.respond(OK_HEADERS, false) });
    });
    const session = client(port);
    const req = session.request({ ":method": "POST", ":path": "/x" });
    req.on("error", () => {});
    req.end();
    await once(req, "response");
    req.close(http2.constants.NGHTTP2_CANCEL);
    await until(() => closes > 0);
    expect(closes).toBe(1);
    expect(stream?.write(Buffer.from("late"))).toBe(true);
    expect(stream?.closed).toBe(true);
  });

  it("answers pings, and sends away a client the ping policy refuses", async () => {
    let allow = true;
    const { port } = await serve(() => {}, { onPing: () => allow });
    const session = client(port);
    await once(session, "connect");
    const rtt = await new Promise<number>((resolve, reject) =>
      session.ping((err, duration) => (err ? reject(err) : resolve(duration))),
    );
    expect(rtt).toBeGreaterThanOrEqual(0);
    allow = false;
    const goaway = once(session, "goaway");
    session.ping(() => {});
    const [code, , debug] = (await goaway) as [number, number, Buffer];
    expect(code).toBe(ErrorCode.ENHANCE_YOUR_CALM);
    expect(debug.toString()).toBe("too_many_pings");
  });

  it("refuses streams over the concurrency limit it advertised", async () => {
    const { port } = await serve(() => {}, { maxConcurrentStreams: 2 });
    const raw = handshaken(port);
    for (const id of [1, 3, 5]) {
      raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, requestBlock()));
    }
    await until(() => raw.frames.some((f) => f.type === FrameType.RST_STREAM));
    const settings = raw.frames.find((f) => f.type === FrameType.SETTINGS && f.flags === 0);
    expect(settings?.payload.toString("hex")).toContain("000300000002");
    const resets = raw.frames.filter((f) => f.type === FrameType.RST_STREAM);
    expect(resets.map((f) => [f.streamId, f.payload.readUInt32BE(0)])).toEqual([
      [5, ErrorCode.REFUSED_STREAM],
    ]);
  });

  it("resets a malformed request, and the connection serves the next one", async () => {
    const paths: string[] = [];
    const { port } = await serve((stream) => {
      paths.push(stream.header(":path") ?? "");
      stream.respond(OK_HEADERS, true);
    });
    const raw = handshaken(port);
    const malformed = encodeHeaderBlock([
      [":method", "POST"],
      [":path", "/bad"],
      ["connection", "keep-alive"],
    ]);
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, malformed));
    raw.send(
      frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 3, requestBlock("/good")),
    );
    await until(() => raw.frames.some((f) => f.type === FrameType.HEADERS && f.streamId === 3));
    const reset = raw.frames.find((f) => f.type === FrameType.RST_STREAM);
    expect([reset?.streamId, reset?.payload.readUInt32BE(0)]).toEqual([
      1,
      ErrorCode.PROTOCOL_ERROR,
    ]);
    expect(paths).toEqual(["/good"]);
  });

  const request = (fields: [string, string][]) => encodeHeaderBlock(fields);
  const base: [string, string][] = [
    [":method", "POST"],
    [":scheme", "http"],
    [":path", "/x"],
  ];
  it.each([
    [
      "without :scheme",
      [
        frame(
          FrameType.HEADERS,
          Flag.END_HEADERS | Flag.END_STREAM,
          1,
          request([base[0], base[2]] as [string, string][]),
        ),
      ],
    ],
    [
      "with :path twice",
      [
        frame(
          FrameType.HEADERS,
          Flag.END_HEADERS | Flag.END_STREAM,
          1,
          request([...base, [":path", "/y"]]),
        ),
      ],
    ],
    [
      "whose body is shorter than its content-length",
      [
        frame(FrameType.HEADERS, Flag.END_HEADERS, 1, request([...base, ["content-length", "3"]])),
        frame(FrameType.DATA, Flag.END_STREAM, 1, Buffer.from("x")),
      ],
    ],
    [
      "with a pseudo-header in its trailers",
      [
        frame(FrameType.HEADERS, Flag.END_HEADERS, 1, request(base)),
        frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, request([[":path", "/t"]])),
      ],
    ],
    [
      "that depends on itself",
      [
        frame(
          FrameType.HEADERS,
          Flag.END_HEADERS | Flag.END_STREAM | Flag.PRIORITY,
          1,
          Buffer.concat([Buffer.from([0, 0, 0, 1, 16]), request(base)]),
        ),
      ],
    ],
  ])("resets a request %s and serves the next one", async (_what, frames) => {
    const { port } = await serve((stream) =>
      stream.listen({ data: () => {}, end: () => stream.respond(OK_HEADERS, true) }),
    );
    const raw = handshaken(port);
    for (const f of frames as Buffer[]) raw.send(f);
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 3, requestBlock()));
    await until(() => raw.frames.some((f) => f.type === FrameType.HEADERS && f.streamId === 3));
    const resets = raw.frames.filter((f) => f.type === FrameType.RST_STREAM);
    expect(resets.map((f) => [f.streamId, f.payload.readUInt32BE(0)])).toEqual([
      [1, ErrorCode.PROTOCOL_ERROR],
    ]);
  });

  it("drops frames on a stream it reset, and answers frames on a finished one", async () => {
    const { port } = await serve((stream) => {
      if (stream.header(":path") === "/reset") stream.reset(ErrorCode.CANCEL);
      else stream.listen({ data: () => {}, end: () => stream.respond(OK_HEADERS, true) });
    });
    const raw = handshaken(port);
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 1, requestBlock("/reset")));
    raw.send(frame(FrameType.DATA, Flag.END_STREAM, 1, Buffer.from("sent before the reset")));
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 3, requestBlock()));
    await until(() => raw.frames.some((f) => f.type === FrameType.HEADERS && f.streamId === 3));
    // Stream 3 is finished both ways: more DATA there is a stream error.
    raw.send(frame(FrameType.DATA, 0, 3, Buffer.from("late")));
    await until(() => raw.frames.some((f) => f.type === FrameType.RST_STREAM && f.streamId === 3));
    const resets = raw.frames.filter((f) => f.type === FrameType.RST_STREAM);
    expect(resets.map((f) => [f.streamId, f.payload.readUInt32BE(0)])).toEqual([
      [1, ErrorCode.CANCEL],
      [3, ErrorCode.STREAM_CLOSED],
    ]);
    expect(goawayOf(raw.frames)).toBeUndefined();
  });

  it("after its GOAWAY, leaves new streams unserved without ending the connection", async () => {
    const paths: string[] = [];
    const harness = await serve((stream) => {
      paths.push(stream.header(":path") ?? "");
      stream.listen({ data: () => {}, end: () => {} });
    });
    const raw = handshaken(harness.port);
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 1, requestBlock("/first")));
    await until(() => paths.length === 1);
    harness.connections[0]?.close();
    await until(() => goawayOf(raw.frames) !== undefined);
    // A request the client sent before it saw the GOAWAY, with its body.
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 3, requestBlock("/late")));
    raw.send(frame(FrameType.DATA, Flag.END_STREAM, 3, Buffer.from("body")));
    raw.send(frame(FrameType.PING, 0, 0, Buffer.alloc(8)));
    await until(() => raw.frames.some((f) => f.type === FrameType.PING));
    expect(goawayOf(raw.frames)).toMatchObject({ lastStreamId: 1, code: ErrorCode.NO_ERROR });
    expect(paths).toEqual(["/first"]);
    expect(raw.frames.filter((f) => f.type === FrameType.GOAWAY)).toHaveLength(1);
  });

  it("reads padded HEADERS and DATA, and priority fields in HEADERS", async () => {
    const bodies: string[] = [];
    const { port } = await serve((stream) =>
      stream.listen({
        data: (chunk) => bodies.push(chunk.toString()),
        end: () => bodies.push(`end ${stream.header(":path")}`),
      }),
    );
    const raw = handshaken(port);
    const block = requestBlock("/padded");
    const padding = 3;
    const headers = Buffer.concat([
      Buffer.from([padding]),
      Buffer.from([0, 0, 0, 0, 16]), // stream dependency and weight
      block,
      Buffer.alloc(padding),
    ]);
    raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.PADDED | Flag.PRIORITY, 1, headers));
    const data = Buffer.concat([Buffer.from([2]), Buffer.from("body"), Buffer.alloc(2)]);
    raw.send(frame(FrameType.DATA, Flag.PADDED | Flag.END_STREAM, 1, data));
    await until(() => bodies.length === 2);
    expect(bodies).toEqual(["body", "end /padded"]);
  });

  it.each([
    [
      "a frame before SETTINGS",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, frame(FrameType.PING, 0, 0, Buffer.alloc(8))]));
      },
      ErrorCode.PROTOCOL_ERROR,
    ],
    [
      "DATA on stream 0",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.DATA, 0, 0, Buffer.from("x")));
      },
      ErrorCode.PROTOCOL_ERROR,
    ],
    [
      "an even-numbered stream",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 2, requestBlock()));
      },
      ErrorCode.PROTOCOL_ERROR,
    ],
    [
      "a header block it cannot decode",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        // Indexed field 127: beyond the static table, and the dynamic table is empty.
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 1, Buffer.from([0xff, 0x00])));
      },
      ErrorCode.COMPRESSION_ERROR,
    ],
    [
      "a frame larger than it advertised",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 1, Buffer.alloc(20_000)));
      },
      ErrorCode.FRAME_SIZE_ERROR,
    ],
    [
      "a window beyond 2^31-1",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(windowUpdateFrame(0, 0x7fff_ffff));
      },
      ErrorCode.FLOW_CONTROL_ERROR,
    ],
    [
      "a HEADERS interrupted before its CONTINUATION",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.HEADERS, 0, 1, requestBlock()));
        raw.send(frame(FrameType.PING, 0, 0, Buffer.alloc(8)));
      },
      ErrorCode.PROTOCOL_ERROR,
    ],
    [
      "a stream below one it opened",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 5, requestBlock()));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS, 3, requestBlock()));
      },
      ErrorCode.PROTOCOL_ERROR,
    ],
    [
      "HEADERS on a stream both sides finished",
      (raw: ReturnType<typeof rawClient>) => {
        raw.send(Buffer.concat([CLIENT_PREFACE, settingsFrame(new Map())]));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, requestBlock()));
        raw.send(frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 1, requestBlock()));
      },
      ErrorCode.STREAM_CLOSED,
    ],
  ])("sends a client away with GOAWAY for %s", async (_what, act, code) => {
    // Every request is answered at once: the stream is finished both ways when its END_STREAM came.
    const harness = await serve((stream) => stream.respond(OK_HEADERS, true));
    const raw = rawClient(harness.port);
    act(raw);
    await raw.closed;
    expect(goawayOf(raw.frames)?.code).toBe(code);
    expect(harness.errors.length).toBeGreaterThan(0);
  });

  it("cuts off a client that keeps sending while it reads none of the answers", async () => {
    // 15 KB of response headers to every request: what a client asks for, unread, piles up.
    const large = encodeHeaderBlock([
      [":status", "200"],
      ["x-large", "x".repeat(15_000)],
    ]);
    const harness = await serve((stream) => stream.respond(large, true));
    const raw = handshaken(harness.port);
    raw.socket.pause();
    let closed = false;
    void raw.closed.then(() => {
      closed = true;
    });
    // Batches of 100 requests, each batch asking for 1.5 MB of answers, until cut off (by
    // 16 MiB unread, far less than the 8,000 requests the loop could send).
    for (let id = 1; id < 16_000 && !closed; ) {
      const batch: Buffer[] = [];
      for (const end = id + 200; id < end; id += 2) {
        batch.push(
          frame(FrameType.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, id, requestBlock()),
        );
      }
      raw.socket.write(Buffer.concat(batch));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await raw.closed;
    expect(harness.errors.map((e) => e.message)).toContain(
      "client sends but does not read its responses",
    );
  });

  it("closes a connection that does not start with the HTTP/2 preface", async () => {
    const harness = await serve(() => {});
    const raw = rawClient(harness.port);
    raw.send(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    await raw.closed;
    expect(harness.errors.map((e) => e.message)).toContain("not an HTTP/2 connection preface");
  });

  it("on close, sends GOAWAY, finishes open streams, then ends the connection", async () => {
    let open: Http2ServerStream | undefined;
    const harness = await serve((stream) => {
      open = stream;
      stream.listen({ data: () => {}, end: () => stream.respond(OK_HEADERS, false) });
    });
    const session = client(harness.port);
    const req = session.request({ ":method": "POST", ":path": "/x" });
    req.on("error", () => {});
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.end();
    await once(req, "response");
    const goaway = once(session, "goaway");
    harness.connections[0]?.close();
    const [code, lastStreamId] = (await goaway) as [number, number];
    expect([code, lastStreamId]).toEqual([ErrorCode.NO_ERROR, 1]);
    // The open stream is still served after GOAWAY.
    open?.write(Buffer.from("after goaway"));
    open?.end(trailers([["grpc-status", "0"]]));
    await once(req, "close");
    expect(Buffer.concat(chunks).toString()).toBe("after goaway");
    await once(session, "close");
  });
});
