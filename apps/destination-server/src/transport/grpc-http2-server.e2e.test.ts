import { connect as connectHttp2, type IncomingHttpHeaders } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GrpcHttp2Server } from "./grpc-http2-server.js";
import { frameMessage } from "./message-frames.js";
import { serverStreaming, unary } from "./method-handlers.js";
import type { ServerCall } from "./server-call.js";
import { Status } from "./status-code.js";
import { StatusError } from "./status-error.js";

// A test service whose messages are UTF-8 text, served by our transport and called by grpc-js'
// client (and by raw HTTP/2 requests where a client library would not send what is tested).
const ECHO = "/test.Echo/Echo";
const STREAM = "/test.Echo/Stream";
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const frame = (value: string) => frameMessage(Buffer.from(value, "utf8"));
const codec = {
  requestSerialize: (value: string) => Buffer.from(value),
  // A request starting with "!" is one the server cannot decode.
  requestDeserialize: (bytes: Buffer) => {
    const value = bytes.toString("utf8");
    if (value.startsWith("!")) throw new Error("not a request");
    return value;
  },
  responseSerialize: (value: string) => Buffer.from(value),
  responseDeserialize: (bytes: Buffer) => bytes.toString(),
};
// One definition for both sides, as @destination/proto's service definitions are.
const METHODS = {
  echo: { path: ECHO, requestStream: false, responseStream: false, originalName: "Echo", ...codec },
  stream: {
    path: STREAM,
    requestStream: false,
    responseStream: true,
    originalName: "Stream",
    ...codec,
  },
};
const EchoClient = grpc.makeGenericClientConstructor(METHODS, "test.Echo");
type Client = InstanceType<typeof EchoClient> & {
  echo(request: string, callback: (err: grpc.ServiceError | null, value?: string) => void): void;
  stream(request: string, options?: grpc.CallOptions): grpc.ClientReadableStream<string>;
};

/** What a streaming call ended with, and what it received before. */
function collect(stream: grpc.ClientReadableStream<string>) {
  const received: string[] = [];
  stream.on("data", (value: string) => received.push(value));
  stream.on("error", () => {});
  return new Promise<{ received: string[]; code: number; details: string }>((resolve) =>
    stream.on("status", (s: grpc.StatusObject) =>
      resolve({ received, code: s.code, details: s.details }),
    ),
  );
}

/** A raw HTTP/2 request to the server: what gRPC libraries would not send. */
function rawRequest(port: number, headers: Record<string, string>, body: Buffer) {
  const session = connectHttp2(`http://127.0.0.1:${port}`);
  const request = session.request({ ":method": "POST", te: "trailers", ...headers });
  let response: IncomingHttpHeaders = {};
  let trailers: IncomingHttpHeaders = {};
  request.on("response", (h) => {
    response = h;
  });
  request.on("trailers", (t) => {
    trailers = t;
  });
  request.resume();
  request.end(body);
  return new Promise<{ response: IncomingHttpHeaders; trailers: IncomingHttpHeaders }>((resolve) =>
    request.on("close", () => {
      session.close();
      resolve({ response, trailers });
    }),
  );
}

let server: GrpcHttp2Server;
let port: number;
let client: Client;
/** The calls the stream handler was given, and which of them were aborted. */
let calls: ServerCall[];
let aborted: ServerCall[];
let onStream: (call: ServerCall, request: string) => void;

beforeEach(async () => {
  calls = [];
  aborted = [];
  onStream = () => {};
  server = new GrpcHttp2Server({
    maxConcurrentStreams: 0,
    pings: { minPingIntervalMs: 10_000, permitWithoutCalls: true },
    logger: silent,
  });
  server.handle(
    ECHO,
    unary(METHODS.echo, (request) => {
      if (request === "missing") throw new StatusError(Status.NOT_FOUND, "no such thing");
      return `echo ${request}`;
    }),
  );
  server.handle(
    STREAM,
    serverStreaming(METHODS.stream, (call, request) => {
      calls.push(call);
      call.onAbort(() => aborted.push(call));
      onStream(call, request);
    }),
  );
  port = await server.listen("127.0.0.1", 0);
  client = new EchoClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as Client;
});

afterEach(async () => {
  client.close();
  await server.shutdown(100, () => {});
});

describe("GrpcHttp2Server", () => {
  it("answers a unary call, and its error as a status", async () => {
    const call = (request: string) =>
      new Promise<unknown>((resolve) =>
        client.echo(request, (err, value) =>
          resolve(err ? { code: err.code, details: err.details } : value),
        ),
      );
    expect(await call("hi")).toBe("echo hi");
    expect(await call("missing")).toEqual({ code: Status.NOT_FOUND, details: "no such thing" });
  });

  it("streams messages, then ends with OK and no message", async () => {
    onStream = (call, request) => {
      for (const word of request.split(" ")) call.write(frame(word));
      call.end(Status.OK);
    };
    expect(await collect(client.stream("a b c"))).toEqual({
      received: ["a", "b", "c"],
      code: Status.OK,
      details: "",
    });
    expect(aborted).toEqual([]);
  });

  it("ends with an error status before any message (trailers only) or after some", async () => {
    onStream = (call, request) => {
      if (request === "late") call.write(frame("first"));
      call.end(Status.INVALID_ARGUMENT, `Invalid authority: ${request} ü`);
    };
    expect(await collect(client.stream("early"))).toEqual({
      received: [],
      code: Status.INVALID_ARGUMENT,
      details: "Invalid authority: early ü",
    });
    expect(await collect(client.stream("late"))).toEqual({
      received: ["first"],
      code: Status.INVALID_ARGUMENT,
      details: "Invalid authority: late ü",
    });
  });

  it("sends grpc-go's response headers and trailers, without a date", async () => {
    onStream = (call, request) => {
      if (request === "one") call.write(frame("first"));
      call.end(Status.OK);
    };
    const streamed = await rawRequest(
      port,
      { ":path": STREAM, "content-type": "application/grpc" },
      frame("one"),
    );
    // Header names only: node adds a symbol-keyed list of sensitive headers.
    const names = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h));
    expect(names(streamed.response)).toEqual({
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-accept-encoding": "identity,deflate,gzip",
    });
    expect(names(streamed.trailers)).toEqual({ "grpc-status": "0" });
    const trailersOnly = await rawRequest(
      port,
      { ":path": STREAM, "content-type": "application/grpc" },
      frame("none"),
    );
    expect(names(trailersOnly.response)).toEqual({
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-accept-encoding": "identity,deflate,gzip",
      "grpc-status": "0",
    });
  });

  it("answers an unknown method UNIMPLEMENTED, and a request that is not gRPC 415", async () => {
    const unknown = await rawRequest(
      port,
      { ":path": "/test.Echo/Nope", "content-type": "application/grpc" },
      frame("x"),
    );
    expect(unknown.response["grpc-status"]).toBe(String(Status.UNIMPLEMENTED));
    expect(unknown.response["grpc-message"]).toBe(
      "The server does not implement the method /test.Echo/Nope",
    );
    const notGrpc = await rawRequest(
      port,
      { ":path": ECHO, "content-type": "text/plain" },
      frame("x"),
    );
    expect(notGrpc.response[":status"]).toBe(415);
  });

  it("refuses a call with no request message, two of them, or one it cannot decode", async () => {
    const send = async (body: Buffer) => {
      const { response, trailers } = await rawRequest(
        port,
        { ":path": STREAM, "content-type": "application/grpc" },
        body,
      );
      return { ...response, ...trailers };
    };
    expect(await send(Buffer.alloc(0))).toMatchObject({
      "grpc-status": String(Status.UNIMPLEMENTED),
      "grpc-message": `Received no request message for server streaming method ${STREAM}`,
    });
    expect(await send(Buffer.concat([frame("a"), frame("b")]))).toMatchObject({
      "grpc-status": String(Status.UNIMPLEMENTED),
      "grpc-message": `Received a second request message for server streaming method ${STREAM}`,
    });
    expect(await send(frame("!bad"))).toMatchObject({
      "grpc-status": String(Status.INTERNAL),
      "grpc-message": "grpc: error unmarshalling request: not a request",
    });
    expect(await send(frame("a").subarray(0, 4))).toMatchObject({
      "grpc-status": String(Status.INTERNAL),
      "grpc-message": "Request body ended in the middle of a message",
    });
    expect(calls).toEqual([]);
  });

  it("reads a request the client compressed", async () => {
    const compressing = new EchoClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      "grpc.default_compression_algorithm": 2,
    }) as Client;
    onStream = (call, request) => {
      call.write(frame(request));
      call.end(Status.OK);
    };
    const long = "x".repeat(5000);
    expect((await collect(compressing.stream(long))).received).toEqual([long]);
    compressing.close();
  });

  it("ends a call whose deadline passed with DEADLINE_EXCEEDED and tells the handler", async () => {
    const { response, trailers } = await rawRequest(
      port,
      { ":path": STREAM, "content-type": "application/grpc", "grpc-timeout": "50m" },
      frame("wait"),
    );
    expect({ ...response, ...trailers }).toMatchObject({
      "grpc-status": String(Status.DEADLINE_EXCEEDED),
      "grpc-message": "Deadline exceeded",
    });
    expect(aborted).toEqual(calls);
    expect(calls).toHaveLength(1);
  });

  it("refuses a malformed grpc-timeout", async () => {
    const { response } = await rawRequest(
      port,
      { ":path": STREAM, "content-type": "application/grpc", "grpc-timeout": "soon" },
      frame("wait"),
    );
    expect(response["grpc-status"]).toBe(String(Status.INTERNAL));
    expect(calls).toEqual([]);
  });

  it("tells the handler when the client cancels, and writes nothing after", async () => {
    onStream = (call) => call.write(frame("hello"));
    const stream = client.stream("x");
    await new Promise((resolve) => stream.once("data", resolve));
    stream.on("error", () => {});
    stream.cancel();
    await expect.poll(() => aborted.length).toBe(1);
    expect(calls[0]?.ended).toBe(true);
    expect(calls[0]?.write(frame("late"))).toBe(true);
  });

  it("reports backpressure once more is written than HTTP/2 can send, then drains", async () => {
    let writes = 0;
    let drained = false;
    onStream = (call) => {
      const chunk = frame("y".repeat(64 * 1024));
      do writes++;
      while (call.write(chunk) && writes < 1000);
      call.once("drain", () => {
        drained = true;
        call.end(Status.OK);
      });
    };
    const stream = client.stream("x");
    const ended = collect(stream);
    expect((await ended).code).toBe(Status.OK);
    expect(writes).toBeLessThan(1000);
    expect(drained).toBe(true);
  });

  it("shuts down once open calls end, and closes what is left at the timeout", async () => {
    onStream = (call) => call.write(frame("open"));
    const stream = client.stream("x");
    const ended = collect(stream);
    await new Promise((resolve) => stream.once("data", resolve));
    let timedOut = false;
    const shutdown = server.shutdown(200, () => {
      timedOut = true;
    });
    // Refused once shutting down: no new connection is accepted.
    const late = new EchoClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as Client;
    const lateEnd = collect(late.stream("x", { deadline: Date.now() + 2000 }));
    await shutdown;
    expect(timedOut).toBe(true);
    expect((await ended).code).toBe(Status.UNAVAILABLE);
    expect((await lateEnd).code).not.toBe(Status.OK);
    late.close();
  });

  it("sends a client that pings too often away with too_many_pings, as grpc-go", async () => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    const goaway = new Promise<{ code: number; data: string }>((resolve) =>
      session.on("goaway", (code, _last, data) => resolve({ code, data: String(data) })),
    );
    session.on("error", () => {});
    await new Promise((resolve) => session.once("connect", resolve));
    const pong = () => new Promise((resolve) => session.ping(resolve));
    // The first ping is never a strike, the next two are tolerated.
    for (let i = 0; i < 3; i++) await pong();
    expect(session.closed).toBe(false);
    void pong();
    expect(await goaway).toEqual({ code: 11, data: "too_many_pings" });
  });

  it("forgives a ping for what the server sends, not for a call the client opens", async () => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    const goaway = new Promise<number>((resolve) => session.on("goaway", resolve));
    session.on("error", () => {});
    await new Promise((resolve) => session.once("connect", resolve));
    const pong = () => new Promise((resolve) => session.ping(resolve));
    await pong();
    await pong(); // strike 1
    // A call the handler answers nothing on yet: the server has sent nothing.
    const request = session.request({
      ":method": "POST",
      ":path": STREAM,
      "content-type": "application/grpc",
    });
    request.on("error", () => {});
    request.end(frame("quiet"));
    await expect.poll(() => calls.length).toBe(1);
    await pong(); // strike 2
    void pong(); // strike 3
    expect(await goaway).toBe(11);
  });

  it("shuts down without waiting when every call ends in time", async () => {
    onStream = (call) => {
      call.write(frame("open"));
      setTimeout(() => call.end(Status.OK), 50);
    };
    const ended = collect(client.stream("x"));
    await expect.poll(() => calls.length).toBe(1);
    let timedOut = false;
    await server.shutdown(5000, () => {
      timedOut = true;
    });
    expect(timedOut).toBe(false);
    expect(await ended).toMatchObject({ received: ["open"], code: Status.OK });
  });
});
