// Scenario 1: the proxy balances a Service's endpoints as our server reports them, in ingress
// mode (l5d-dst-override) and in sidecar mode (iptables REDIRECT of the ClusterIP range), on
// the manifests backend and on a real kube-apiserver.
import { afterAll, describe, expect, it } from "vitest";
import { readyEndpoints } from "../src/balancer.js";
import {
  endpointSlice,
  fqdn,
  node,
  pod,
  podIdentity,
  serviceProfile,
} from "../src/cluster-objects.js";
import { eventually } from "../src/eventually.js";
import { CLIENT_PORTS, CLIENT_UID, WEB, webObjects, webPod } from "../src/fixtures.js";
import { KubeBackend, SERVICE_CIDR } from "../src/kube-backend.js";
import type { BackendChoice, Mesh } from "../src/mesh.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { sum } from "../src/prometheus-text.js";
import { ingressSender, type Send, sidecarSender, spread, untilAnswered } from "../src/traffic.js";

const kube = new KubeBackend();

const meshes = meshPerTest();
afterAll(() => kube.stop());

async function backend(kind: BackendChoice["kind"]): Promise<BackendChoice> {
  return kind === "manifests" ? { kind } : { kind, env: await kube.get() };
}

/** Starts the client proxy in `mode` and returns how to send requests to the web Service. */
async function clientFor(m: Mesh, mode: "ingress" | "sidecar") {
  const client = await m.startProxy({
    name: "client",
    identity: podIdentity("client"),
    uid: CLIENT_UID,
    ports: CLIENT_PORTS,
    ingressMode: mode === "ingress",
  });
  let send: Send;
  if (mode === "ingress") {
    const socket = await m.agent.forward("client-outbound", "127.0.0.1", CLIENT_PORTS.outbound);
    send = ingressSender(socket, fqdn(WEB.name, WEB.port));
  } else {
    m.ns.redirect(SERVICE_CIDR, CLIENT_PORTS.outbound, CLIENT_UID);
    const socket = await m.agent.forward("web-clusterip", WEB.clusterIP, WEB.port);
    send = sidecarSender(socket, fqdn(WEB.name, WEB.port));
  }
  return { client, send };
}

/**
 * How long each pod takes to answer. The proxy balances by peak-EWMA latency and gives a new
 * endpoint a 30 ms estimate that decays over 10 s; pods answering in well under a millisecond
 * would cost less than a newcomer for half a minute, so P2C would never pick the added pod
 * within the deadline. Pods slower than 30 ms make a newcomer the cheaper choice at once.
 */
const POD_ANSWER_DELAY_MS = 60;

describe.each(["manifests", "kube-apiserver"] as const)("on the %s backend", (kind) => {
  it.each(["ingress", "sidecar"] as const)(
    "%s mode: traffic reaches every endpoint, leaves a removed one, reaches an added one",
    async (mode) => {
      const mesh = await meshes.create(await backend(kind));
      const pods = [1, 2, 3, 4].map((i) => webPod(i));
      for (const p of pods)
        await mesh.agent.httpPod(p.name, p.ip, p.port, {
          mode: "slow",
          delayMs: POD_ANSWER_DELAY_MS,
        });
      const [p1, p2, p3, p4] = pods as [
        (typeof pods)[0],
        (typeof pods)[0],
        (typeof pods)[0],
        (typeof pods)[0],
      ];
      await mesh.apply(
        node(),
        ...webObjects([p1, p2, p3]),
        // Sidecar mode balances over Get only for a Service with a profile (no policy controller).
        ...(mode === "sidecar"
          ? [serviceProfile(WEB.name, [{ name: "all", pathRegex: "/.*" }])]
          : []),
      );
      await mesh.startServer();
      const { client, send } = await clientFor(mesh, mode);

      await untilAnswered(send, ["web-1", "web-2", "web-3"]);

      // web-3 leaves the slice but keeps serving: only the proxy's discovery keeps it unused.
      await mesh.apply(endpointSlice(WEB.name, WEB.targetPort, [p1, p2]));
      await eventually("2 ready endpoints in the balancer", async () =>
        (await readyEndpoints(client)) === 2 ? true : undefined,
      );
      // Every one of these is a 200 from a pod (spread checks); none may come from web-3. P2C
      // picks by load, so the two that are left need not both answer 40 sequential requests.
      const after = await spread(send, 40);
      expect(after.get("web-3")).toBeUndefined();
      expect([...after.values()].reduce((a, b) => a + b, 0)).toBe(40);

      // As in a cluster, the pod exists before a slice names it: the slice is written once our
      // server's pod cache holds the new pod (the pod and slice watches are not ordered).
      const podsCached = async () => sum(await mesh.serverMetrics(), "pod_cache_size");
      const podsBefore = await podsCached();
      await mesh.apply(pod(p4));
      await eventually("our server to cache web-4's pod", async () =>
        (await podsCached()) > podsBefore ? true : undefined,
      );
      await mesh.apply(endpointSlice(WEB.name, WEB.targetPort, [p1, p2, p4]));
      // Discovery first (the proxy's balancer holds the new endpoint), then traffic to it.
      await eventually("3 ready endpoints in the balancer", async () =>
        (await readyEndpoints(client)) === 3 ? true : undefined,
      );
      await untilAnswered(send, ["web-4"]);
    },
  );
});
