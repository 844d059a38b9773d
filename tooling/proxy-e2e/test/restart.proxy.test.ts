// Scenario 5: our server restarted under a running proxy. While it is down the proxy keeps
// routing on the endpoints it knew; it reconnects once the server is back, and then follows
// the changes made while the server was down.
import { expect, it } from "vitest";
import { readyEndpoints } from "../src/balancer.js";
import { endpointSlice, fqdn, node, pod } from "../src/cluster-objects.js";
import { eventually } from "../src/eventually.js";
import { clientProxyOptions, WEB, webObjects, webPod } from "../src/fixtures.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { ingressSender, spread, untilAnswered } from "../src/traffic.js";

const meshes = meshPerTest();

it("keeps routing while our server is down, reconnects, and sees what changed meanwhile", async () => {
  const mesh = await meshes.create({ kind: "manifests" });
  const [p1, p2, p3, p4] = [1, 2, 3, 4].map((i) => webPod(i)) as [
    ReturnType<typeof webPod>,
    ReturnType<typeof webPod>,
    ReturnType<typeof webPod>,
    ReturnType<typeof webPod>,
  ];
  for (const p of [p1, p2, p3, p4]) await mesh.agent.httpPod(p.name, p.ip, p.port);
  await mesh.apply(node(), ...webObjects([p1, p2, p3]));
  await mesh.startServer();
  const client = await mesh.startProxy(clientProxyOptions(true));
  const socket = await mesh.agent.forward(
    "client-outbound",
    "127.0.0.1",
    client.options.ports.outbound,
  );
  const send = ingressSender(socket, fqdn(WEB.name, WEB.port));
  await untilAnswered(send, ["web-1", "web-2", "web-3"], { timeoutMs: 45_000 });

  await mesh.stopServer();
  // Down: every request is still answered, by the pods the proxy knew.
  const whileDown = await spread(send, 30);
  expect([...whileDown.keys()].every((p) => ["web-1", "web-2", "web-3"].includes(p))).toBe(true);

  // Changed while no server watches: web-3 leaves, web-4 joins.
  await mesh.apply(pod(p4), endpointSlice(WEB.name, WEB.targetPort, [p1, p2, p4]));
  expect(await readyEndpoints(client)).toBe(3);

  await mesh.startServer();
  await untilAnswered(send, ["web-4"], { timeoutMs: 45_000 });
  await eventually("the balancer to hold web-1, web-2 and web-4 only", async () =>
    (await readyEndpoints(client)) === 3 ? true : undefined,
  );
  const after = await spread(send, 40);
  expect(after.get("web-3")).toBeUndefined();
});
