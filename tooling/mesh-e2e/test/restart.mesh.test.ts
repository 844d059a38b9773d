// Scenario 4: the destination service restarted under traffic, as the kubelet restarts its
// container (SIGTERM, the same pod and address). Requests sent one after another through the
// client's proxy all succeed while it is down and after it is back; the proxy re-subscribes to
// the new process, which shows when a pod then taken out of the slice stops getting requests.
import { readyEndpoints } from "@destination/proxy-e2e/balancer";
import { endpointSlice, fqdn, node } from "@destination/proxy-e2e/cluster-objects";
import { eventually } from "@destination/proxy-e2e/eventually";
import { serviceObjects } from "@destination/proxy-e2e/fixtures";
import { sidecarSender, untilAnswered } from "@destination/proxy-e2e/traffic";
import { describe, expect, it } from "vitest";
import { CLIENT, WEB, webPod } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { meshFile, meshWith } from "../src/mesh-lifecycle.js";
import { steadyTraffic } from "../src/steady-traffic.js";

const file = meshFile();
/** Answers the test waits for while the destination service is down. */
const WHILE_DOWN = 30;

describe.each(DESTINATIONS)("with %s destination service", (kind) => {
  const mesh = meshWith(file, kind);

  it("keeps every request succeeding across a restart, and follows the slice afterwards", async () => {
    const w = await mesh.workloads();
    const pods = [1, 2, 3].map((i) => webPod(i));
    const [p1, p2] = pods as [(typeof pods)[0], (typeof pods)[0]];
    for (const p of pods) await w.serveApp(p);
    await w.apply(node(), ...serviceObjects(WEB, pods));
    const client = await w.startClientPod(CLIENT);
    const socket = await w.agent.forward("web-clusterip", WEB.clusterIP, WEB.port);
    const send = sidecarSender(socket, fqdn(WEB.name, WEB.port));
    await untilAnswered(send, ["web-1", "web-2", "web-3"]);

    const traffic = steadyTraffic(send);
    await mesh.controlPlane.stopDestination();
    const atStop = traffic.record.answered.length;
    await eventually(`${WHILE_DOWN} answers while the destination service is down`, () =>
      traffic.record.answered.length >= atStop + WHILE_DOWN ? true : undefined,
    );
    await mesh.controlPlane.startDestination();

    // web-3 leaves the slice (it keeps serving): only a live subscription to the new process
    // tells the proxy.
    await w.apply(endpointSlice(WEB.name, WEB.targetPort, [p1, p2]));
    await eventually(
      "the proxy to follow the new process: 2 ready endpoints",
      async () => ((await readyEndpoints(client)) === 2 ? true : undefined),
      { timeoutMs: 45_000 },
    );
    const atFollow = traffic.record.answered.length;
    await eventually("20 more answers", () =>
      traffic.record.answered.length >= atFollow + 20 ? true : undefined,
    );
    const record = await traffic.stop();

    expect(record.failed).toEqual([]);
    expect(record.answered.slice(atFollow)).not.toContain("web-3");
  });
});
