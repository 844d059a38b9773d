// Sending requests through a proxy and counting which pod answered, from the pods' own answers.
import { eventually } from "./eventually.js";
import { type HttpAnswer, httpGet } from "./http-over-socket.js";

export interface PodAnswer {
  readonly pod: string;
  /** The `l5d-client-id` a server-side proxy put on the request (mTLS), or null. */
  readonly clientId: string | null;
}

/** The pod that answered, or undefined when the answer is not from one of our pods. */
export function podOf(answer: HttpAnswer): PodAnswer | undefined {
  if (answer.headers["x-pod"] === undefined) return undefined;
  return JSON.parse(answer.body) as PodAnswer;
}

export type Send = (path?: string) => Promise<HttpAnswer>;

/** Requests to a Service through an ingress-mode proxy: the Service is named by l5d-dst-override. */
export function ingressSender(socketPath: string, authority: string): Send {
  return (path = "/") => httpGet(socketPath, path, { "l5d-dst-override": authority });
}

/** Requests as an application would send them: to the ClusterIP, redirected to the proxy. */
export function sidecarSender(socketPath: string, authority: string): Send {
  return (path = "/") => httpGet(socketPath, path, { host: authority });
}

/** How many of `count` requests each pod answered; every answer must be a pod's 200. */
export async function spread(send: Send, count: number, path = "/"): Promise<Map<string, number>> {
  const byPod = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const answer = await send(path);
    const pod = podOf(answer);
    if (answer.status !== 200 || pod === undefined) {
      throw new Error(`request ${i + 1}: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
    byPod.set(pod.pod, (byPod.get(pod.pod) ?? 0) + 1);
  }
  return byPod;
}

/** Sends one request at a time until every pod in `want` has answered one. */
export async function untilAnswered(
  send: Send,
  want: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const seen = new Set<string>();
  await eventually(
    `answers from ${want.join(", ")}`,
    async () => {
      const answered = podOf(await send());
      if (answered) seen.add(answered.pod);
      return want.every((p) => seen.has(p)) || undefined;
    },
    options,
  );
}
