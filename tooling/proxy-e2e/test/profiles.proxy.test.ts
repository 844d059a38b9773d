// Scenario 4: what a ServiceProfile served by us makes the proxy do. A retryable route with a
// budget hides a pod's every-other-request 500s; a route timeout cuts a slow pod short; a
// traffic split (dstOverrides) divides requests between two Services in the profile's ratio.
import { expect, it } from "vitest";
import { fqdn, node, serviceProfile } from "../src/cluster-objects.js";
import { clientProxyOptions, serviceObjects, WEB, webPod } from "../src/fixtures.js";
import type { Mesh } from "../src/mesh.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { ingressSender, podOf, type Send, spread } from "../src/traffic.js";

const meshes = meshPerTest();

/** A mesh with the web Service and `profile`, and an ingress-mode client sending to web. */
async function meshWithProfile(
  pods: Parameters<Mesh["agent"]["httpPod"]>[3][],
  profile: ReturnType<typeof serviceProfile>,
  extraObjects: ReturnType<typeof serviceObjects> = [],
): Promise<{ mesh: Mesh; send: Send }> {
  const mesh = await meshes.create({ kind: "manifests" });
  const specs = pods.map((_, i) => webPod(i + 1));
  for (const [i, p] of specs.entries()) await mesh.agent.httpPod(p.name, p.ip, p.port, pods[i]);
  await mesh.apply(node(), ...serviceObjects(WEB, specs), profile, ...extraObjects);
  await mesh.startServer();
  const client = await mesh.startProxy(clientProxyOptions(true));
  const socket = await mesh.agent.forward(
    "client-outbound",
    "127.0.0.1",
    client.options.ports.outbound,
  );
  return { mesh, send: ingressSender(socket, fqdn(WEB.name, WEB.port)) };
}

it("a retryable route with a retry budget: the client never sees the pod's 500s", async () => {
  const { send } = await meshWithProfile(
    [{ mode: "flaky" }],
    serviceProfile(
      WEB.name,
      [
        { name: "flaky", pathRegex: "/flaky", isRetryable: true },
        { name: "other", pathRegex: "/other" },
      ],
      { retryBudget: { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: "10s" } },
    ),
  );
  const answers = [];
  for (let i = 0; i < 20; i++) answers.push(await send("/flaky"));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  // The pod numbers its requests and fails the odd ones: every answer the client got is an
  // even one, so each was the retry of a 500 the proxy kept to itself.
  const counts = answers.map((a) => (JSON.parse(a.body) as { n: number }).n);
  expect(counts.every((n) => n % 2 === 0)).toBe(true);
  // A route not marked retryable passes the same pod's 500 on: of two requests, one fails.
  const other = [await send("/other"), await send("/other")].map((a) => a.status).sort();
  expect(other).toEqual([200, 500]);
});

it("a route timeout answers 504 instead of waiting for a slow pod", async () => {
  const { send } = await meshWithProfile(
    [{ mode: "slow", delayMs: 5_000 }],
    serviceProfile(WEB.name, [{ name: "slow", pathRegex: "/slow", timeout: "300ms" }]),
  );
  const answer = await send("/slow");
  expect(answer.status).toBe(504);
  // Cut by the proxy: no pod answered it.
  expect(podOf(answer)).toBeUndefined();
});

const SPLIT_REQUESTS = 400;
const A_SHARE = 0.75;
/**
 * Measured: 13 runs of 400 requests gave web-a shares of 0.708–0.755, mean 0.734 (the binomial
 * σ at p = 0.75, n = 400 is 0.022). ±0.09 is about 4 σ.
 */
const SPLIT_TOLERANCE = 0.09;

it("dstOverrides split traffic between two Services in the profile's ratio", async () => {
  const a = { name: "web-a", clusterIP: "10.96.0.11", port: 80, targetPort: 8080 } as const;
  const b = { name: "web-b", clusterIP: "10.96.0.12", port: 80, targetPort: 8080 } as const;
  const aPod = { name: "web-a-1", app: a.name, ip: "10.244.3.11", port: 8080 };
  const bPod = { name: "web-b-1", app: b.name, ip: "10.244.3.12", port: 8080 };
  const { mesh, send } = await meshWithProfile(
    [{ mode: "ok" }],
    serviceProfile(WEB.name, [{ name: "all", pathRegex: "/.*" }], {
      dstOverrides: [
        { authority: fqdn(a.name, a.port), weight: "750m" },
        { authority: fqdn(b.name, b.port), weight: "250m" },
      ],
    }),
    [...serviceObjects(a, [aPod]), ...serviceObjects(b, [bPod])],
  );
  await mesh.agent.httpPod(aPod.name, aPod.ip, aPod.port);
  await mesh.agent.httpPod(bPod.name, bPod.ip, bPod.port);
  const byPod = await spread(send, SPLIT_REQUESTS);
  const share = (byPod.get("web-a-1") ?? 0) / SPLIT_REQUESTS;
  console.log(
    `dstOverrides: web-a share ${share.toFixed(3)} of ${SPLIT_REQUESTS} (want ${A_SHARE})`,
  );
  // The profile's own Service is not among the overrides: its pod gets nothing.
  expect(byPod.get("web-1")).toBeUndefined();
  expect(Math.abs(share - A_SHARE)).toBeLessThanOrEqual(SPLIT_TOLERANCE);
});
