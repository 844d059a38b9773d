// Scenario 6: a pod that publishes a host port, reached at the node's IP and that port. The
// proxy's GetProfile for nodeIP:hostPort gets the pod behind it as the profile's endpoint (its
// metric labels), and follows the pod when it is replaced by another one on the same node.
import { expect, it } from "vitest";
import { NODE_IP, node, type PodSpec, pod } from "../src/cluster-objects.js";
import { eventually } from "../src/eventually.js";
import { CLIENT_UID, clientProxyOptions } from "../src/fixtures.js";
import { httpGet } from "../src/http-over-socket.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { select } from "../src/prometheus-text.js";

const meshes = meshPerTest();

const HOST_PORT = 9100;

function exporter(i: number): PodSpec {
  return {
    name: `exporter-${i}`,
    app: "exporter",
    ip: `10.244.4.${10 + i}`,
    port: HOST_PORT,
    hostPort: HOST_PORT,
  };
}

/** The node's port mapping (for the proxy's connections): nodeIP:hostPort to a pod. */
function hostPortRule(to: PodSpec): string[] {
  return [
    "-p",
    "tcp",
    "-d",
    `${NODE_IP}/32`,
    "--dport",
    String(HOST_PORT),
    "-m",
    "owner",
    "--uid-owner",
    String(CLIENT_UID),
    "-j",
    "DNAT",
    "--to-destination",
    `${to.ip}:${to.port}`,
  ];
}

it("GetProfile on nodeIP:hostPort follows the pod behind the host port when it is replaced", async () => {
  const mesh = await meshes.create({ kind: "manifests" });
  const first = exporter(1);
  const second = exporter(2);
  const third = exporter(3);
  for (const p of [first, second, third]) await mesh.agent.httpPod(p.name, p.ip, p.port);
  await mesh.apply(node(), pod(first));
  await mesh.startServer();
  // Sidecar mode: the application's connection to nodeIP:hostPort is redirected to the proxy
  // (only the proxy's own traffic is exempt), and the proxy's goes through the host port mapping.
  const client = await mesh.startProxy(clientProxyOptions(false));
  mesh.ns.redirect(`${NODE_IP}/32`, client.options.ports.outbound, CLIENT_UID, HOST_PORT);
  mesh.ns.iptables("-t", "nat", "-I", "OUTPUT", "1", ...hostPortRule(first));
  const socket = await mesh.agent.forward("host-port", NODE_IP, HOST_PORT);

  /** Requests the proxy sent to nodeIP:hostPort, by the pod its labels name. */
  const requestsTo = async (podName: string) =>
    select(await client.metrics(), "request_total", {
      direction: "outbound",
      target_addr: `${NODE_IP}:${HOST_PORT}`,
      dst_pod: podName,
    }).reduce((n, s) => n + s.value, 0);

  /** Requests to nodeIP:hostPort that carry no pod label (a bare endpoint). */
  const unlabelledRequests = async () =>
    select(await client.metrics(), "request_total", {
      direction: "outbound",
      target_addr: `${NODE_IP}:${HOST_PORT}`,
    })
      .filter((s) => s.labels.dst_pod === undefined)
      .reduce((n, s) => n + s.value, 0);

  await eventually("a request labelled with exporter-1", async () => {
    const answer = await httpGet(socket, "/");
    expect(answer.status).toBe(200);
    return (await requestsTo("exporter-1")) > 0 || undefined;
  });

  // The pod is replaced, as its DaemonSet would: deleted, and once it is gone a new one, with a
  // new pod IP, takes the host port on the same node. Gone: the proxy's lookup drops the pod's
  // labels (the profile's endpoint is the bare address).
  await mesh.delete("Pod", first.name);
  await eventually("a request without pod labels", async () => {
    const before = await unlabelledRequests();
    const answer = await httpGet(socket, "/");
    expect(answer.status).toBe(200);
    return (await unlabelledRequests()) > before || undefined;
  });
  await mesh.apply(pod(second));
  mesh.ns.iptables("-t", "nat", "-D", "OUTPUT", ...hostPortRule(first));
  mesh.ns.iptables("-t", "nat", "-I", "OUTPUT", "1", ...hostPortRule(second));
  await eventually("a request labelled with exporter-2", async () => {
    const answer = await httpGet(socket, "/");
    expect(answer.status).toBe(200);
    return (await requestsTo("exporter-2")) > 0 || undefined;
  });

  // Replaced again in one change: the folder scan that sees it applies exporter-3 before it
  // deletes exporter-2, and the lookup still ends at exporter-3.
  await mesh.replace("Pod", second.name, pod(third));
  mesh.ns.iptables("-t", "nat", "-D", "OUTPUT", ...hostPortRule(second));
  mesh.ns.iptables("-t", "nat", "-I", "OUTPUT", "1", ...hostPortRule(third));
  await eventually("a request labelled with exporter-3", async () => {
    const answer = await httpGet(socket, "/");
    expect(answer.status).toBe(200);
    return (await requestsTo("exporter-3")) > 0 || undefined;
  });
});
