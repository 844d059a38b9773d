// Requests sent one after another until stopped, each answer recorded: what an application sees
// while something in the control plane changes under it.
import { podOf, type Send } from "@destination/proxy-e2e/traffic";

export interface TrafficRecord {
  /** Every answer's pod (a 200 from one of the pods). */
  readonly answered: string[];
  /** Every request that did not get a pod's 200: its status or error. */
  readonly failed: string[];
}

export interface SteadyTraffic {
  readonly record: TrafficRecord;
  /** Ends the loop after the request in flight; resolves with what was seen. */
  stop(): Promise<TrafficRecord>;
}

export function steadyTraffic(send: Send, pauseMs = 20): SteadyTraffic {
  const record = { answered: [] as string[], failed: [] as string[] };
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const answer = await send();
        const pod = podOf(answer);
        if (answer.status === 200 && pod !== undefined) record.answered.push(pod.pod);
        else record.failed.push(`${answer.status} ${answer.body.slice(0, 120)}`);
      } catch (err) {
        record.failed.push(String(err));
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    record,
    async stop() {
      running = false;
      await loop;
      return record;
    },
  };
}
