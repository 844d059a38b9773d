import { type Clock, type Logger, silentLogger, systemClock } from "@destination/core";
import { type KubeApi, KubeApiError } from "@destination/k8s-discovery";

/** coordination.k8s.io/v1 Lease, the fields leader election reads and writes. */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec?: LeaseRecord;
}

export interface LeaseRecord {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface LeaseElectorOptions {
  readonly api: KubeApi;
  readonly namespace: string;
  readonly name: string;
  /** This replica's name in the Lease (upstream: `HOSTNAME`, the pod's name). */
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly onStartedLeading: () => void;
  /** Called once leadership ends, lost or given up; nothing may be written after it. */
  readonly onStoppedLeading: () => void;
  /** The holder changed to `identity` (as this replica observed it). */
  readonly onNewLeader?: (identity: string) => void;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * Leader election on a Lease with client-go's rules: try to acquire every retry period (with
 * client-go's jitter), and take the Lease when it does not exist, has no holder, or has not
 * changed for a whole lease duration as this replica observed it (its own clock, never the
 * holder's timestamps); the holder renews every retry period, and gives leadership up when it
 * could not renew within the renew deadline. Writes are optimistic on the Lease's
 * resourceVersion, so two replicas never both win one round.
 */
export class LeaseElector {
  readonly #options: LeaseElectorOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #path: string;
  #observed: LeaseRecord | undefined;
  #observedJson = "";
  #observedAt = 0;
  #lease: Lease | undefined;
  #reportedLeader = "";
  #leading = false;
  #stopped = false;
  #running: Promise<void> | undefined;
  readonly #abort = new AbortController();
  #wake: (() => void) | undefined;

  constructor(options: LeaseElectorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(options.namespace)}/leases`;
  }

  get isLeading(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /**
   * Stops campaigning and renewing. With `release` (the default, upstream's ReleaseOnCancel) a
   * held Lease is given up at once, so another replica takes over without waiting for it to
   * expire; without it the Lease is left to expire, as when a replica dies.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    if (this.#stopped) return this.#running;
    this.#stopped = true;
    this.#abort.abort();
    this.#wake?.();
    await this.#running;
    if (options.release ?? true) await this.#release();
  }

  async #run(): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs } = this.#options;
    while (!this.#stopped) {
      // Campaign until this replica holds the Lease.
      while (!this.#stopped && !(await this.#tryAcquireOrRenew(renewDeadlineMs))) {
        await this.#sleep(retryPeriodMs * (1 + Math.random() * 1.2));
      }
      if (this.#stopped) return;
      this.#leading = true;
      this.#options.onStartedLeading();
      // Renew every retry period; a renewal that keeps failing for the renew deadline loses it.
      while (!this.#stopped && (await this.#renew())) await this.#sleep(retryPeriodMs);
      this.#leading = false;
      this.#options.onStoppedLeading();
    }
  }

  async #renew(): Promise<boolean> {
    const deadline = this.#clock.now() + this.#options.renewDeadlineMs;
    while (!this.#stopped) {
      const left = deadline - this.#clock.now();
      if (left <= 0) break;
      if (await this.#tryAcquireOrRenew(left)) return true;
      await this.#sleep(Math.min(this.#options.retryPeriodMs, deadline - this.#clock.now()));
    }
    if (!this.#stopped) this.#logger.info(`failed to renew lease ${this.#key()}`);
    return false;
  }

  async #tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const { identity, name, leaseDurationMs } = this.#options;
    const now = this.#clock.now();
    const record: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    const request = { signal: this.#abort.signal, timeoutMs: Math.max(1, Math.round(timeoutMs)) };
    let lease: Lease;
    try {
      lease = await this.#options.api.json<Lease>({ ...request, path: `${this.#path}/${name}` });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.statusCode === 404)) {
        this.#failed("error retrieving resource lock", err);
        return false;
      }
      try {
        const created = await this.#options.api.json<Lease>({
          ...request,
          method: "POST",
          path: this.#path,
          body: {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: { name, namespace: this.#options.namespace },
            spec: record,
          },
        });
        this.#observe(created, record, this.#clock.now());
        return true;
      } catch (createErr) {
        this.#failed("error initially creating leader election record", createErr);
        return false;
      }
    }

    const old = lease.spec ?? {};
    const oldJson = JSON.stringify(old);
    if (oldJson !== this.#observedJson) {
      this.#observed = old;
      this.#observedJson = oldJson;
      this.#observedAt = this.#clock.now();
      this.#reportTransition();
    }
    const held = (old.holderIdentity ?? "") !== "";
    const valid = this.#observedAt + leaseDurationMs > now;
    if (held && valid && !this.#isHolder()) return false;

    if (this.#isHolder()) {
      record.acquireTime = old.acquireTime ?? null;
      record.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      record.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await this.#options.api.json<Lease>({
        ...request,
        method: "PUT",
        path: `${this.#path}/${name}`,
        body: { ...lease, spec: record },
      });
      this.#observe(updated, record, this.#clock.now());
      return true;
    } catch (err) {
      this.#failed("failed to update lock", err);
      return false;
    }
  }

  #isHolder(): boolean {
    return (this.#observed?.holderIdentity ?? "") === this.#options.identity;
  }

  #observe(lease: Lease, record: LeaseRecord, at: number): void {
    this.#lease = lease;
    this.#observed = lease.spec ?? record;
    this.#observedJson = JSON.stringify(this.#observed);
    this.#observedAt = at;
    this.#reportTransition();
  }

  #reportTransition(): void {
    const holder = this.#observed?.holderIdentity ?? "";
    if (holder === this.#reportedLeader) return;
    this.#reportedLeader = holder;
    this.#options.onNewLeader?.(holder);
  }

  /** Gives the Lease up: no holder, and a duration of one second (client-go's release). */
  async #release(): Promise<void> {
    if (!this.#isHolder() || this.#lease === undefined) return;
    const now = microTime(this.#clock.now());
    try {
      const released = await this.#options.api.json<Lease>({
        method: "PUT",
        path: `${this.#path}/${this.#options.name}`,
        timeoutMs: this.#options.renewDeadlineMs,
        body: {
          ...this.#lease,
          spec: {
            holderIdentity: "",
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: this.#observed?.leaseTransitions ?? 0,
          },
        },
      });
      this.#observe(released, released.spec ?? {}, this.#clock.now());
    } catch (err) {
      this.#failed("failed to release lock", err);
    }
  }

  #failed(what: string, err: unknown): void {
    if (this.#stopped && this.#abort.signal.aborted && !(err instanceof KubeApiError)) return;
    this.#logger.error(`${what} ${this.#key()}: ${(err as Error).message}`);
  }

  #key(): string {
    return `${this.#options.namespace}/${this.#options.name}`;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(done, ms);
      const wake = () => {
        this.#clock.clearTimeout(timer);
        done();
      };
      function done() {
        resolve();
      }
      this.#wake = wake;
    });
  }
}

/** Kubernetes' MicroTime: RFC 3339 with exactly six fractional digits, in UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
