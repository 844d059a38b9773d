/**
 * The cluster scenario's two stream-heavy phases, run on each server after its churn: RSS with
 * many Get streams open over every Service, and fan-out of endpoint changes made through the API
 * server to many streams of one Service. Both go through the real watch path, so a ratio to
 * upstream compares the whole route a change takes to a proxy.
 */
import { ClientPool, StreamGroup } from "../clients.js";
import {
  authority,
  namespaceOf,
  pod,
  podIp,
  type SliceEndpointRef,
  serviceName,
  slice,
} from "../fixtures.js";
import type { KubeWriter } from "../kube-writer.js";
import type { ServerProcess } from "../server-process.js";
import { nowMs } from "../stats.js";
import { nodeName, sleep } from "./common.js";

const FIRST_MESSAGE_TIMEOUT_MS = 120_000;
/** How long a server is left alone before its RSS is read. */
const SETTLE_MS = 3000;
/** After a pod is created, before the slice names it: as in a rollout, the pod is known first. */
const POD_FIRST_MS = 300;
/** Pod IPs of the fan-out's added endpoints: far above the dataset's and the churn's. */
const FANOUT_IP_BASE = 8_000_000;

export interface WideStreams {
  /** RSS once every stream had its first message and the server was left alone. */
  readonly rssMb: number;
  /** Opening to the last stream's first message. */
  readonly allFirstMs: number;
  /** The server's CPU over that time. */
  readonly cpuMs: number;
}

/** `n` Get streams spread evenly over the first `services` Services, each with its own node. */
export async function wideStreams(
  server: ServerProcess,
  connections: number,
  services: number,
  n: number,
): Promise<WideStreams> {
  const pool = new ClientPool(server.grpcPort, connections);
  try {
    await pool.ready();
    const specs = Array.from({ length: n }, (_, i) => ({
      path: authority(i % services),
      nodeName: nodeName(i),
    }));
    const cpu0 = server.cpuMs();
    const t0 = nowMs();
    const group = new StreamGroup(pool, specs);
    const { lastMs } = await group.waitFor(1, FIRST_MESSAGE_TIMEOUT_MS);
    const allFirstMs = lastMs - t0;
    const cpuMs = server.cpuMs() - cpu0;
    await sleep(SETTLE_MS);
    const rssMb = server.rssMb();
    group.cancel();
    return { rssMb, allFirstMs, cpuMs };
  } finally {
    pool.close();
  }
}

/** Endpoint additions to one Service, each numbered apart across passes and servers. */
export class FanoutChanges {
  #seq = 0;

  constructor(
    private readonly writer: KubeWriter,
    /** The Service's current endpoints (the churn's rotation keeps them current). */
    private readonly endpoints: SliceEndpointRef[],
    readonly serviceIndex: number,
  ) {}

  /**
   * `n` Get streams of the Service, then `rounds` endpoint additions (and one warm-up first):
   * each sample is the slice write to the last stream having the Add. Afterwards the streams are
   * closed and the Service is put back as it was.
   */
  async run(
    server: ServerProcess,
    connections: number,
    n: number,
    rounds: number,
  ): Promise<number[]> {
    const s = this.serviceIndex;
    const base = [...this.endpoints];
    const added: SliceEndpointRef[] = [];
    const pool = new ClientPool(server.grpcPort, connections);
    const samples: number[] = [];
    try {
      await pool.ready();
      const specs = Array.from({ length: n }, (_, i) => ({
        path: authority(s),
        nodeName: nodeName(i),
      }));
      const group = new StreamGroup(pool, specs);
      await group.waitFor(1, FIRST_MESSAGE_TIMEOUT_MS);
      for (let round = 0; round <= rounds; round++) {
        const seq = this.#seq++;
        const ref = {
          pod: `${serviceName(s)}-fanout-${seq}`,
          ip: podIp(FANOUT_IP_BASE + seq),
          node: seq,
        };
        await this.writer.apply(pod(s, ref.pod, ref.ip, ref.node));
        await sleep(POD_FIRST_MS);
        added.push(ref);
        const want = Math.min(...group.counts) + 1;
        const t0 = nowMs();
        await this.writer.apply(slice(s, [...base, ...added]));
        const { lastMs } = await group.waitFor(want, FIRST_MESSAGE_TIMEOUT_MS);
        if (round > 0) samples.push(lastMs - t0);
      }
      group.cancel();
    } finally {
      pool.close();
      await this.writer.apply(slice(s, base));
      for (const ref of added) await this.writer.delete("Pod", namespaceOf(s), ref.pod);
    }
    return samples;
  }
}
