/**
 * Rolling pod replacement through the API server, as a rollout does it: a new Running pod, the
 * slice swapping its oldest endpoint for it, the old pod deleted. The cluster and
 * reconnect-storm scenarios run it between or beside their measurements.
 */
import { namespaceOf, pod, podIp, type SliceEndpointRef, serviceName, slice } from "../fixtures.js";
import { inParallel, type KubeWriter } from "../kube-writer.js";
import { sleep } from "./common.js";

/** Replacements written at once: enough for 20/s on a loaded API server. */
const LANES = 16;

/**
 * Continued across passes, so that every pass runs on a cluster of the same size. Services are
 * taken in turn and each loses its oldest endpoint, so a service's last pods are the last to go.
 */
export class ClusterChurn {
  #seq = 0;
  readonly #writer: KubeWriter;
  readonly #endpoints: SliceEndpointRef[][];
  readonly #firstIp: number;

  constructor(writer: KubeWriter, endpoints: SliceEndpointRef[][], firstIp: number) {
    this.#writer = writer;
    this.#endpoints = endpoints;
    this.#firstIp = firstIp;
  }

  /**
   * Replaces pods at `perSecond` for `seconds`, or until `signal` aborts (replacements already
   * started finish); resolves with the number replaced.
   */
  async run(seconds: number, perSecond: number, signal?: AbortSignal): Promise<number> {
    const start = performance.now();
    const total = Math.round(seconds * perSecond);
    const ids = Array.from({ length: total }, (_, i) => i);
    let done = 0;
    await inParallel(ids, LANES, async (i) => {
      if (signal?.aborted) return;
      const wait = start + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await sleep(wait);
      if (signal?.aborted) return;
      await this.#replaceOne();
      done++;
    });
    return done;
  }

  async #replaceOne(): Promise<void> {
    const seq = this.#seq++;
    const s = seq % this.#endpoints.length;
    const refs = this.#endpoints[s] as SliceEndpointRef[];
    const old = refs.shift() as SliceEndpointRef;
    const ref: SliceEndpointRef = {
      pod: `${serviceName(s)}-churn-${seq}`,
      ip: podIp(this.#firstIp + seq),
      node: seq,
    };
    refs.push(ref);
    await this.#writer.apply(pod(s, ref.pod, ref.ip, ref.node));
    await this.#writer.apply(slice(s, refs));
    await this.#writer.delete("Pod", namespaceOf(s), old.pod);
  }
}
