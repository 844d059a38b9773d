// The pods and Services the scenarios share, on the addresses proxy-e2e uses: pods in
// 10.244.0.0/16, Services in the API server's Service range 10.96.0.0/12.
import type { PodSpec } from "@destination/proxy-e2e/cluster-objects";

/** The meshed client: its proxy runs in sidecar mode in front of the test's requests. */
export const CLIENT: PodSpec = {
  name: "client",
  app: "client",
  ip: "10.244.9.2",
  port: 8080,
  serviceAccount: "client",
};

export const WEB = { name: "web", clusterIP: "10.96.0.10", port: 80, targetPort: 8080 } as const;

export function webPod(i: number, extra: Partial<PodSpec> = {}): PodSpec {
  return {
    name: `web-${i}`,
    app: WEB.name,
    ip: `10.244.0.${10 + i}`,
    port: WEB.targetPort,
    ...extra,
  };
}

/**
 * How long each HTTP pod takes to answer. The proxy balances by peak-EWMA latency with a 30 ms
 * start estimate (tooling/proxy-e2e/README.md): pods slower than that are all picked.
 */
export const POD_ANSWER_DELAY_MS = 60;
