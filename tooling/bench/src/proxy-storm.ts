/**
 * A reconnect storm as a server meets it after a control-plane restart: many proxies, each
 * opening its lookups of one target at a moment spread evenly over a window, on connections
 * that are new at the storm's start. Each stream's latency runs from its own call to its first
 * message.
 */
import type * as grpc from "@grpc/grpc-js";
import { ClientPool, type DestinationRpc, getRequest } from "./clients.js";
import { nowMs } from "./stats.js";

/**
 * One proxy's lookups of one target, as a proxy makes them: `GetProfile` and then `Get` for a
 * Service, `GetProfile` alone for an IP (the profile carries the endpoint; `Get` refuses IPs).
 */
export interface ProxyLookups {
  readonly path: string;
  readonly nodeName: string;
  readonly rpcs: readonly DestinationRpc[];
}

export interface StormOutcome {
  /** First call to the last stream's first message. */
  readonly allAnsweredMs: number;
  /** First call to the last call: longer than the window when the client fell behind. */
  readonly openedMs: number;
  /** Each stream's call to its first message. */
  readonly latenciesMs: Float64Array;
}

/** How often the opener wakes to call the proxies whose moment has come. */
const TICK_MS = 2;

export class ProxyStorm {
  readonly #pool: ClientPool;
  readonly #proxies: readonly ProxyLookups[];
  readonly #windowMs: number;
  readonly #streams: grpc.ClientReadableStream<Buffer>[] = [];
  readonly #openedAt: Float64Array;
  readonly #answeredAt: Float64Array;
  /** Proxy p's streams are numbered from #firstStream[p]. */
  readonly #firstStream: Uint32Array;
  #unanswered: number;
  #firstCall = 0;
  #lastCall = 0;
  #lastAnswer = 0;
  #failure: Error | undefined;
  #cancelled = false;
  #settle: (() => void) | undefined;

  /** Creates the connections (they connect on their first call). */
  constructor(
    port: number,
    proxies: readonly ProxyLookups[],
    connections: number,
    windowMs: number,
  ) {
    this.#pool = new ClientPool(port, Math.min(connections, proxies.length));
    this.#proxies = proxies;
    this.#windowMs = windowMs;
    this.#firstStream = new Uint32Array(proxies.length);
    let streams = 0;
    proxies.forEach((proxy, p) => {
      this.#firstStream[p] = streams;
      streams += proxy.rpcs.length;
    });
    this.#openedAt = new Float64Array(streams);
    this.#answeredAt = new Float64Array(streams);
    this.#unanswered = streams;
  }

  /** Streams the storm opens. */
  get streams(): number {
    return this.#openedAt.length;
  }

  /** Opens every proxy's lookups over the window; resolves when every stream has an answer. */
  run(timeoutMs: number): Promise<StormOutcome> {
    return new Promise<StormOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settle = undefined;
        reject(
          new Error(
            `${this.#unanswered} of ${this.#openedAt.length} streams unanswered after ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.#settle = () => {
        clearTimeout(timer);
        this.#settle = undefined;
        if (this.#failure !== undefined) reject(this.#failure);
        else
          resolve({
            allAnsweredMs: this.#lastAnswer - this.#firstCall,
            openedMs: this.#lastCall - this.#firstCall,
            latenciesMs: this.#answeredAt.map((at, i) => at - (this.#openedAt[i] as number)),
          });
      };
      this.#openOverWindow();
    });
  }

  cancel(): void {
    this.#cancelled = true;
    for (const s of this.#streams) s.cancel();
    this.#pool.close();
  }

  #openOverWindow(): void {
    const n = this.#proxies.length;
    const start = nowMs();
    let next = 0;
    const tick = () => {
      if (this.#cancelled || this.#settle === undefined) return;
      const due = Math.min(n, Math.floor(((nowMs() - start) / this.#windowMs) * n) + 1);
      while (next < due) this.#openProxy(next++);
      if (next < n) setTimeout(tick, TICK_MS);
    };
    tick();
  }

  #openProxy(p: number): void {
    const proxy = this.#proxies[p] as ProxyLookups;
    const client = this.#pool.client(p);
    const request = getRequest(proxy.path, proxy.nodeName);
    proxy.rpcs.forEach((rpc, k) => {
      const i = (this.#firstStream[p] as number) + k;
      const at = nowMs();
      if (this.#firstCall === 0) this.#firstCall = at;
      this.#lastCall = at;
      this.#openedAt[i] = at;
      const stream = rpc === "getProfile" ? client.getProfile(request) : client.get(request);
      stream.on("data", () => {
        if (this.#answeredAt[i] !== 0) return;
        const answered = nowMs();
        this.#answeredAt[i] = answered;
        this.#lastAnswer = answered;
        if (--this.#unanswered === 0) this.#settle?.();
      });
      stream.on("error", (err: grpc.ServiceError) => {
        if (this.#cancelled || this.#answeredAt[i] !== 0) return;
        // A stream that fails before its first answer never gets one: the storm has failed.
        this.#failure ??= new Error(`${rpc} ${proxy.path} failed before answering: ${err.message}`);
        this.#settle?.();
      });
      this.#streams.push(stream);
    });
  }
}
