// Scenario 5b: the high-availability render, three destination replicas (each pod with its
// policy controller and its own proxy, as the chart's has), with different HOSTNAMEs. The
// proxies resolve `linkerd-dst-headless` to the three pods' addresses and balance their streams
// over them (with MESH_ADDRESSING=loopback: each connection to the next live replica, as a
// ClusterIP would). A replica's pod is killed (SIGKILL: nothing released): requests keep
// succeeding and the proxy follows the slice through a surviving replica; when the killed one
// held the `linkerd-destination-endpoint-write` Lease, another replica takes it.
import { readyEndpoints } from "@destination/proxy-e2e/balancer";
import { endpointSlice, fqdn, node } from "@destination/proxy-e2e/cluster-objects";
import { eventually } from "@destination/proxy-e2e/eventually";
import { serviceObjects } from "@destination/proxy-e2e/fixtures";
import { sum } from "@destination/proxy-e2e/prometheus-text";
import { sidecarSender, untilAnswered } from "@destination/proxy-e2e/traffic";
import { describe, expect, it } from "vitest";
import { CLIENT, WEB, webPod } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { type Mesh, meshFile, meshWith } from "../src/mesh-lifecycle.js";
import { steadyTraffic } from "../src/steady-traffic.js";

const file = meshFile({ ha: true });
const LEASE = "linkerd-destination-endpoint-write";
/** Upstream's Lease lasts 30 s: a killed holder's is taken over after it runs out. */
const TAKEOVER_MS = 90_000;

/** The web Service over three pods, the client, and a sender of requests to it. */
async function webAndClient(mesh: Mesh) {
  const w = await mesh.workloads();
  const pods = [1, 2, 3].map((i) => webPod(i));
  for (const p of pods) await w.serveApp(p);
  await w.apply(node(), ...serviceObjects(WEB, pods));
  const client = await w.startClientPod(CLIENT);
  const socket = await w.agent.forward("web-clusterip", WEB.clusterIP, WEB.port);
  const send = sidecarSender(socket, fqdn(WEB.name, WEB.port));
  await untilAnswered(send, ["web-1", "web-2", "web-3"]);
  return { w, pods, client, send };
}

async function holder(mesh: Mesh): Promise<string> {
  return eventually(`a replica to hold ${LEASE}`, async () => {
    const h = await mesh.cluster.leaseHolder(LEASE);
    return h !== undefined && mesh.controlPlane.hostnames.includes(h) ? h : undefined;
  });
}

describe.each(DESTINATIONS)("with %s destination service, three replicas", (kind) => {
  const mesh = meshWith(file, kind);

  it("a replica killed under traffic: no request fails, the slice is followed through another", async () => {
    const { w, pods, client, send } = await webAndClient(mesh);
    if (file.addressing === "chart") {
      // One name, three addresses: the proxy's destination client balances over all three.
      await eventually("the client's destination balancer to hold the 3 replicas", async () =>
        sum(await client.metrics(), "control_destination_balancer_endpoints", {
          endpoint_state: "ready",
        }) === 3
          ? true
          : undefined,
      );
    }
    const traffic = steadyTraffic(send);
    // The replica the client's Get went to is not known; each of the three is tried in turn.
    for (const victim of mesh.controlPlane.hostnames.slice(0, 2)) {
      await mesh.controlPlane.killReplica(victim);
      const at = traffic.record.answered.length;
      await eventually("20 answers after the kill", () =>
        traffic.record.answered.length >= at + 20 ? true : undefined,
      );
    }
    // Two replicas are gone: only a subscription on the third can tell the proxy.
    await w.apply(endpointSlice(WEB.name, WEB.targetPort, pods.slice(0, 2)));
    await eventually(
      "the proxy to follow the slice: 2 ready endpoints",
      async () => ((await readyEndpoints(client)) === 2 ? true : undefined),
      { timeoutMs: 45_000 },
    );
    const record = await traffic.stop();
    expect(record.failed).toEqual([]);
  });

  it(`the Lease holder killed: another replica takes ${LEASE}`, async () => {
    const { send } = await webAndClient(mesh);
    const first = await holder(mesh);
    const traffic = steadyTraffic(send);
    await mesh.controlPlane.killReplica(first);
    const next = await eventually(
      "another replica to take the Lease",
      async () => {
        const h = await mesh.cluster.leaseHolder(LEASE);
        return h !== undefined && h !== first ? h : undefined;
      },
      { timeoutMs: TAKEOVER_MS, intervalMs: 500 },
    );
    expect(mesh.controlPlane.hostnames).toContain(next);
    const record = await traffic.stop();
    expect(record.failed).toEqual([]);
    expect(record.answered.length).toBeGreaterThan(0);
  });
});
