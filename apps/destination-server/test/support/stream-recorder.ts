import {
  create,
  type DescMessage,
  type DestinationClient,
  DestinationProfileSchema,
  GetDestinationSchema,
  type JsonValue,
  type MessageShape,
  toJson,
  UpdateSchema,
} from "@destination/proto";
import type * as grpc from "@grpc/grpc-js";

export interface StreamEnd {
  readonly code: number;
  readonly details: string;
}

/**
 * Reads a server stream as proto JSON objects, one awaited message at a time, so tests compare
 * messages with literals. Waiting is bounded by the test timeout, never by a sleep.
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

  /** The next message not yet read; fails if the stream ends first. */
  async next(): Promise<JsonValue> {
    while (this.#read >= this.received.length) {
      if (this.#ended !== undefined) {
        throw new Error(
          `stream ended (${this.#ended.code} ${this.#ended.details}) before a message`,
        );
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    const message = this.received[this.#read] as JsonValue;
    this.#read += 1;
    return message;
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

export function request(path: string, contextToken = "") {
  return create(GetDestinationSchema, { scheme: "k8s", path, contextToken });
}

export function get(client: DestinationClient, path: string, token = "") {
  return new StreamRecorder(client.get(request(path, token)), UpdateSchema);
}

export function getProfile(client: DestinationClient, path: string, token = "") {
  return new StreamRecorder(client.getProfile(request(path, token)), DestinationProfileSchema);
}
