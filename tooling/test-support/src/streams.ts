// gRPC streams of the destination service read as proto JSON, one awaited message at a time, so
// tests compare messages with literals. Shared by apps/destination-server/test (in-memory and
// manifest clusters) and tooling/integration (a real API server, whose changes arrive
// asynchronously: hence the bound on `next`).

import { isDeepStrictEqual } from "node:util";
import {
  create,
  type DescMessage,
  DestinationProfileSchema,
  GetDestinationSchema,
  type JsonValue,
  type MessageShape,
  toJson,
  UpdateSchema,
} from "@destination/proto";
import { DestinationClient } from "@destination/proto/client";
import * as grpc from "@grpc/grpc-js";

export interface StreamEnd {
  readonly code: number;
  readonly details: string;
}

/**
 * Reads a server stream as proto JSON objects, one awaited message at a time. Waiting is bounded
 * by a deadline (and the test timeout), never by a sleep.
 */
export class StreamRecorder<Desc extends DescMessage> {
  readonly received: JsonValue[] = [];
  readonly end: Promise<StreamEnd>;
  #read = 0;
  #waiters: (() => void)[] = [];
  #ended: StreamEnd | undefined;

  constructor(
    readonly stream: grpc.ClientReadableStream<MessageShape<Desc>>,
    schema: Desc,
  ) {
    stream.on("data", (message: MessageShape<Desc>) => {
      this.received.push(toJson(schema, message, { alwaysEmitImplicit: false }));
      this.#wake();
    });
    this.end = new Promise((resolve) => {
      stream.on("status", (status: grpc.StatusObject) => {
        this.#ended = { code: status.code, details: status.details };
        resolve(this.#ended);
        this.#wake();
      });
      // Errors also arrive as a status; the listener keeps them from being thrown.
      stream.on("error", () => {});
    });
  }

  /** The stream's end status once it ended, else undefined. */
  get ended(): StreamEnd | undefined {
    return this.#ended;
  }

  /** The next message not read yet; fails if the stream ends first or after `timeoutMs`. */
  async next(timeoutMs = 30_000): Promise<JsonValue> {
    const deadline = Date.now() + timeoutMs;
    while (this.#read >= this.received.length) {
      if (this.#ended !== undefined) {
        throw new Error(
          `stream ended (${this.#ended.code} ${this.#ended.details}) before a message`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const message = this.received[this.#read] as JsonValue;
    this.#read += 1;
    return message;
  }

  /**
   * The next message that is none of `earlier`: states the stream may still show first because
   * the server answers with what it knows when the request arrives, before a change the test has
   * just written reaches it (e.g. the default profile before an applied ServiceProfile). Only
   * messages equal to one of `earlier` are passed over, so anything else is still asserted.
   */
  async nextAfter(earlier: readonly JsonValue[], timeoutMs = 30_000): Promise<JsonValue> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = await this.next(Math.max(1, deadline - Date.now()));
      if (!earlier.some((state) => isDeepStrictEqual(state, message))) return message;
    }
  }

  /** Messages received but not read yet. */
  get unread(): number {
    return this.received.length - this.#read;
  }

  cancel(): void {
    this.stream.cancel();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

/** A Destination client of a server listening on 127.0.0.1:`port`, without TLS. */
export function connect(port: number): DestinationClient {
  return new DestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

export function request(path: string, contextToken = "") {
  return create(GetDestinationSchema, { scheme: "k8s", path, contextToken });
}

export function get(client: DestinationClient, path: string, token = "") {
  return new StreamRecorder(client.get(request(path, token)), UpdateSchema);
}

export function getProfile(client: DestinationClient, path: string, token = "") {
  return new StreamRecorder(client.getProfile(request(path, token)), DestinationProfileSchema);
}

/** The `ipv4` field of an `IPAddress` in proto JSON (a fixed32 read big-endian). */
export function ipv4(text: string): number {
  return text.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
