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

// The balanced Service and its pods: the same addresses as the proxy suite's.
export { WEB, webPod } from "@destination/proxy-e2e/fixtures";

/**
 * How long each HTTP pod takes to answer. The proxy balances by peak-EWMA latency with a 30 ms
 * start estimate (tooling/proxy-e2e/README.md): pods slower than that are all picked.
 */
export const POD_ANSWER_DELAY_MS = 60;
