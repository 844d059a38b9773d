import type { WorkloadPublisher } from "./workload-publisher.js";

/**
 * Publishers by IP, then port. IPs are canonical text. Grouping by IP lets a pod event reach
 * every subscribed port of the pod's IPs, declared or not (Q16).
 */
export class PublisherRegistry {
  readonly #byIp = new Map<string, Map<number, WorkloadPublisher>>();

  /** Whether no publisher is registered: then no pod event needs routing. */
  get empty(): boolean {
    return this.#byIp.size === 0;
  }

  get(ip: string, port: number): WorkloadPublisher | undefined {
    return this.#byIp.get(ip)?.get(port);
  }

  /** The publishers of every subscribed port on this IP. */
  onIp(ip: string): Iterable<WorkloadPublisher> {
    return this.#byIp.get(ip)?.values() ?? [];
  }

  add(publisher: WorkloadPublisher): void {
    let ports = this.#byIp.get(publisher.ip);
    if (ports === undefined) {
      ports = new Map();
      this.#byIp.set(publisher.ip, ports);
    }
    ports.set(publisher.port, publisher);
  }

  /** Removes this very publisher (not a newer one under the same key). */
  remove(publisher: WorkloadPublisher): void {
    const ports = this.#byIp.get(publisher.ip);
    if (ports?.get(publisher.port) !== publisher) return;
    ports.delete(publisher.port);
    if (ports.size === 0) this.#byIp.delete(publisher.ip);
  }

  has(publisher: WorkloadPublisher): boolean {
    return this.get(publisher.ip, publisher.port) === publisher;
  }

  *all(): Iterable<WorkloadPublisher> {
    for (const ports of this.#byIp.values()) yield* ports.values();
  }

  clear(): void {
    this.#byIp.clear();
  }
}
