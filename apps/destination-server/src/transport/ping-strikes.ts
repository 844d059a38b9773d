/** grpc-go's bound on a connection without calls when pings there are not permitted: 2 hours. */
const PING_WITHOUT_CALLS_INTERVAL_MS = 2 * 60 * 60 * 1000;
/** Pings too soon that a connection is forgiven before it is sent away, as grpc-go. */
const MAX_STRIKES = 2;

export interface PingLimits {
  /** Shortest interval between a client's pings that is not counted against it. */
  readonly minPingIntervalMs: number;
  /** Whether pings on a connection without calls are judged by the interval alone. */
  readonly permitWithoutCalls: boolean;
}

/**
 * One connection's record against the keepalive limits. Judged as grpc-go's server judges pings
 * (upstream's behaviour: a ping sooner than the limit after the previous one is a strike, any
 * headers or data the server sends forgive the next ping, and the third strike sends the client
 * away with GOAWAY `too_many_pings`), with one leniency of ours: a ping on time clears the
 * strikes, so only three early pings in a row count. grpc-go keeps strikes until the server
 * sends something, and on an idle stream a proxy pinging right at the limit would collect them
 * from timer jitter over hours; a proxy's keepalive must never be refused.
 */
export class PingStrikes {
  readonly #limits: PingLimits;
  readonly #now: () => number;
  #lastPingAt = Number.NEGATIVE_INFINITY;
  #strikes = 0;
  #forgiveNext = false;

  constructor(limits: PingLimits, now: () => number = performance.now.bind(performance)) {
    this.#limits = limits;
    this.#now = now;
  }

  /** The server sent headers or data on this connection. */
  sent(): void {
    this.#forgiveNext = true;
  }

  /** Judges a ping; true when the connection has had too many and must be sent away. */
  ping(openCalls: number): boolean {
    const now = this.#now();
    const last = this.#lastPingAt;
    this.#lastPingAt = now;
    if (this.#forgiveNext) {
      this.#forgiveNext = false;
      this.#strikes = 0;
      return false;
    }
    const interval =
      openCalls === 0 && !this.#limits.permitWithoutCalls
        ? PING_WITHOUT_CALLS_INTERVAL_MS
        : this.#limits.minPingIntervalMs;
    if (now - last >= interval) {
      this.#strikes = 0;
      return false;
    }
    this.#strikes++;
    return this.#strikes > MAX_STRIKES;
  }
}
