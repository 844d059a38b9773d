// Scenario 1: sidecar HTTP to a Service without a ServiceProfile. Upstream's policy controller
// answers the client proxy's OutboundPolicies with a balancer whose discovery is the
// destination service's Get; the requests are spread over the Service's three pods, and a pod
// taken out of the EndpointSlice (still serving) gets none once the proxy has seen it go.
import { readyEndpoints } from "@destination/proxy-e2e/balancer";
import { endpointSlice, fqdn, node } from "@destination/proxy-e2e/cluster-objects";
import { eventually } from "@destination/proxy-e2e/eventually";
import { serviceObjects } from "@destination/proxy-e2e/fixtures";
import { sum } from "@destination/proxy-e2e/prometheus-text";
import { sidecarSender, spread, untilAnswered } from "@destination/proxy-e2e/traffic";
import { describe, expect, it } from "vitest";
import { CLIENT, POD_ANSWER_DELAY_MS, WEB, webPod } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { meshFile, meshWith } from "../src/mesh-lifecycle.js";

const file = meshFile();

describe.each(DESTINATIONS)("with %s destination service", (kind) => {
  const mesh = meshWith(file, kind);

  it("balances over the three pods, then leaves the one taken out of the slice", async () => {
    const w = await mesh.workloads();
    const pods = [1, 2, 3].map((i) => webPod(i));
    const [p1, p2] = pods as [(typeof pods)[0], (typeof pods)[0]];
    for (const p of pods) await w.serveApp(p, { mode: "slow", delayMs: POD_ANSWER_DELAY_MS });
    await w.apply(node(), ...serviceObjects(WEB, pods));
    const client = await w.startClientPod(CLIENT);
    const socket = await w.agent.forward("web-clusterip", WEB.clusterIP, WEB.port);
    const send = sidecarSender(socket, fqdn(WEB.name, WEB.port));

    await untilAnswered(send, ["web-1", "web-2", "web-3"]);
    // The route is the policy controller's (a Service backend), not a profile's.
    const series = await client.metrics();
    expect(
      sum(series, "outbound_http_balancer_endpoints", {
        endpoint_state: "ready",
        backend_kind: "Service",
        backend_name: WEB.name,
      }),
    ).toBe(3);

    await w.apply(endpointSlice(WEB.name, WEB.targetPort, [p1, p2]));
    await eventually("2 ready endpoints in the balancer", async () =>
      (await readyEndpoints(client)) === 2 ? true : undefined,
    );
    const after = await spread(send, 40);
    expect(after.get("web-3")).toBeUndefined();
    expect([...after.values()].reduce((a, b) => a + b, 0)).toBe(40);
  });
});
