/**
 * Cluster writes at a steady rate: lanes of steps (each lane in order, lanes side by side), every
 * API request waiting for its slot. A lane holds the changes one object depends on (a service's
 * pods and its slice), so they land in the order a controller would write them.
 */
import type { KubeObject } from "@destination/core";
import type { KubeWriter } from "./kube-writer.js";
import { sleep } from "./scenarios/common.js";

export type Step = (writer: PacedWriter) => Promise<void>;

/** A `KubeWriter` whose every request first waits for the next slot of `perSecond`. */
export class PacedWriter {
  readonly #writer: KubeWriter;
  readonly #intervalMs: number;
  #next = 0;

  constructor(writer: KubeWriter, perSecond: number) {
    this.#writer = writer;
    this.#intervalMs = 1000 / perSecond;
  }

  /** Requests sent so far (the writer's count). */
  get writes(): number {
    return this.#writer.writes;
  }

  /** Server-side apply: two requests when the object has a status. */
  async apply(obj: KubeObject & { status?: unknown }): Promise<void> {
    await this.#slot(obj.status === undefined ? 1 : 2);
    await this.#writer.apply(obj);
  }

  async delete(kind: string, namespace: string | undefined, name: string): Promise<void> {
    await this.#slot(1);
    await this.#writer.delete(kind, namespace, name);
  }

  async mergePatch(
    kind: string,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    options: { status?: boolean } = {},
  ): Promise<void> {
    await this.#slot(1);
    await this.#writer.mergePatch(kind, namespace, name, patch, options);
  }

  /** Runs every lane, at most `concurrency` at once, each lane's steps in order. */
  async run(lanes: readonly (readonly Step[])[], concurrency: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < lanes.length) {
        const lane = lanes[next++] as readonly Step[];
        for (const step of lane) await step(this);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, lanes.length) }, worker));
  }

  async #slot(requests: number): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.#next);
    this.#next = at + requests * this.#intervalMs;
    if (at > now) await sleep(at - now);
  }
}
