/**
 * Real @grpc/grpc-js clients for the bench: a pool of channels that each hold their own
 * connection, and Get streams whose messages are counted (and decoded only when asked).
 */
import { create, type GetDestination, GetDestinationSchema } from "@destination/proto";
import { RawDestinationClient } from "@destination/test-support/raw-destination-client";
import * as grpc from "@grpc/grpc-js";
import { nowMs } from "./stats.js";

/** The two streaming calls of the Destination service. */
export type DestinationRpc = "get" | "getProfile";

/** `n` channels to one server, each on a connection of its own. */
export class ClientPool {
  readonly clients: RawDestinationClient[] = [];

  constructor(port: number, n: number) {
    for (let i = 0; i < n; i++) {
      this.clients.push(
        new RawDestinationClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
          // A channel of its own (not the global subchannel pool) and distinct options, so each
          // client opens its own HTTP/2 connection.
          "grpc.use_local_subchannel_pool": 1,
          "grpc.primary_user_agent": `destination-bench/${i}`,
          "grpc.max_receive_message_length": 64 * 1024 * 1024,
        }),
      );
    }
  }

  client(i: number): RawDestinationClient {
    return this.clients[i % this.clients.length] as RawDestinationClient;
  }

  /** Connects every channel (bounded). */
  async ready(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await Promise.all(
      this.clients.map(
        (c) =>
          new Promise<void>((resolve, reject) =>
            c.waitForReady(deadline, (err) => (err ? reject(err) : resolve())),
          ),
      ),
    );
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}

/** The context token of a bench stream: its namespace and node, as a proxy sends them. */
export function contextToken(nodeName: string): string {
  return JSON.stringify({ ns: "bench", nodeName });
}

export function getRequest(path: string, nodeName: string): GetDestination {
  return create(GetDestinationSchema, {
    scheme: "k8s",
    path,
    contextToken: contextToken(nodeName),
  });
}

export interface StreamSpec {
  readonly path: string;
  readonly nodeName: string;
  /** Default `get`. */
  readonly rpc?: DestinationRpc;
}

/**
 * Many Get (or GetProfile) streams with per-stream message counts. `waitFor(k)` resolves when every stream has
 * received at least k messages, with the monotonic time of the first and the last stream to
 * get there; `onMessage` sees every message (for decoding).
 */
export class StreamGroup {
  readonly streams: grpc.ClientReadableStream<Buffer>[] = [];
  readonly counts: Uint32Array;
  /** Streams that ended or failed without being cancelled by the bench. */
  ended = 0;
  #cancelled = false;
  #want = 0;
  #remaining = 0;
  #first = 0;
  #last = 0;
  #resolve: (() => void) | undefined;

  constructor(
    pool: ClientPool,
    specs: readonly StreamSpec[],
    onMessage?: (stream: number, bytes: Buffer, atMs: number) => void,
  ) {
    this.counts = new Uint32Array(specs.length);
    specs.forEach((spec, i) => {
      const client = pool.client(i);
      const request = getRequest(spec.path, spec.nodeName);
      const stream = spec.rpc === "getProfile" ? client.getProfile(request) : client.get(request);
      stream.on("data", (bytes: Buffer) => {
        const at = nowMs();
        const count = (this.counts[i] ?? 0) + 1;
        this.counts[i] = count;
        onMessage?.(i, bytes, at);
        if (count === this.#want && this.#resolve !== undefined) {
          if (this.#first === 0) this.#first = at;
          this.#last = at;
          if (--this.#remaining === 0) this.#resolve();
        }
      });
      stream.on("error", () => {
        if (!this.#cancelled) this.ended++;
      });
      stream.on("status", (s: grpc.StatusObject) => {
        if (!this.#cancelled && s.code === grpc.status.OK) this.ended++;
      });
      this.streams.push(stream);
    });
  }

  get size(): number {
    return this.streams.length;
  }

  /** Messages received by all streams so far. */
  get received(): number {
    let total = 0;
    for (const c of this.counts) total += c;
    return total;
  }

  /** Waits until every stream has `k` messages; rejects after `timeoutMs` with the shortfall. */
  waitFor(k: number, timeoutMs: number): Promise<{ firstMs: number; lastMs: number }> {
    this.#want = k;
    this.#first = 0;
    this.#last = 0;
    this.#remaining = 0;
    for (const c of this.counts) if (c < k) this.#remaining++;
    if (this.#remaining === 0) return Promise.resolve({ firstMs: nowMs(), lastMs: nowMs() });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#resolve = undefined;
        reject(
          new Error(
            `${this.#remaining} of ${this.size} streams lack message ${k} after ${timeoutMs} ms (${this.ended} ended)`,
          ),
        );
      }, timeoutMs);
      this.#resolve = () => {
        clearTimeout(timer);
        this.#resolve = undefined;
        resolve({ firstMs: this.#first, lastMs: this.#last });
      };
    });
  }

  cancel(): void {
    this.#cancelled = true;
    for (const s of this.streams) s.cancel();
  }
}
