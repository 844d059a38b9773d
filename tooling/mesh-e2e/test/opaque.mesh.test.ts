// Scenario 2: an opaque port, marked by the Service's `config.linkerd.io/opaque-ports`
// annotation or by a Server with `proxyProtocol: opaque`, on a port that is not among the
// chart's default opaque ports. Connections to the Service are balanced over its three meshed
// pods and carried over mTLS to each pod's proxy through its opaque transport port (4143): no
// rule sends the pod's own port to its proxy, so a connection reaches the proxy only when the
// destination service's answer names that port.
import { randomBytes } from "node:crypto";
import {
  type KubeObject,
  NAMESPACE,
  node,
  type PodSpec,
  podIdentity,
  server as serverObject,
} from "@destination/proxy-e2e/cluster-objects";
import { serviceObjects } from "@destination/proxy-e2e/fixtures";
import { tcpExchange } from "@destination/proxy-e2e/http-over-socket";
import { sum } from "@destination/proxy-e2e/prometheus-text";
import { describe, expect, it } from "vitest";
import { CLIENT } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { meshFile, meshWith } from "../src/mesh-lifecycle.js";

const file = meshFile();

/** Not in the chart's -default-opaque-ports, so only the mark makes it opaque. */
const PORT = 7000;
const DB = { name: "db", clusterIP: "10.96.0.30", port: PORT, targetPort: PORT } as const;
const CONNECTIONS = 24;

const marks = {
  "the Service's opaque-ports annotation": {
    serviceAnnotations: { "config.linkerd.io/opaque-ports": String(PORT) },
    extra: [] as KubeObject[],
  },
  "a Server with proxyProtocol: opaque": {
    serviceAnnotations: {},
    // A Server denies what no authorization allows (Linkerd's policy, enforced by the pods'
    // proxies with the policy controller's answers): the client's service account is allowed.
    extra: [serverObject("db-opaque", DB.name, PORT, "opaque"), allowClient("db-opaque")],
  },
};

function allowClient(server: string): KubeObject {
  return {
    apiVersion: "policy.linkerd.io/v1beta1",
    kind: "ServerAuthorization",
    metadata: { name: `${server}-client`, namespace: NAMESPACE },
    spec: {
      server: { name: server },
      client: { meshTLS: { serviceAccounts: [{ name: CLIENT.serviceAccount }] } },
    },
  };
}

function dbPod(i: number): PodSpec {
  return {
    name: `db-${i}`,
    app: DB.name,
    ip: `10.244.2.${10 + i}`,
    port: PORT,
    meshed: true,
    serviceAccount: "db",
  };
}

describe.each(DESTINATIONS)("with %s destination service", (kind) => {
  const mesh = meshWith(file, kind);

  it.each(Object.keys(marks) as (keyof typeof marks)[])(
    "a port made opaque by %s is balanced over mTLS through the opaque transport port",
    async (how) => {
      const mark = marks[how];
      const w = await mesh.workloads();
      const pods = [1, 2, 3].map(dbPod);
      for (const p of pods) await w.serveApp(p, { mode: "tcp" });
      await w.apply(
        node(),
        ...serviceObjects({ ...DB, annotations: mark.serviceAnnotations }, pods),
        ...mark.extra,
      );
      const servers = [];
      for (const p of pods) servers.push(await w.startServerProxy(p, { redirect: false }));
      const client = await w.startClientPod(CLIENT);
      const socket = await w.agent.forward("db-clusterip", DB.clusterIP, DB.port);

      // Not HTTP: starts like a TLS record, then random bytes; each pod greets with its name.
      const greeted = new Map<string, number>();
      for (let i = 0; i < CONNECTIONS; i++) {
        const payload = Buffer.concat([Buffer.from([0x16, 0x03, 0x01, 0x00]), randomBytes(4096)]);
        const back = await tcpExchange(socket, payload, "db-n\n".length + payload.length);
        const name = back.subarray(0, 4).toString();
        expect(back.subarray(5).equals(payload)).toBe(true);
        greeted.set(name, (greeted.get(name) ?? 0) + 1);
      }
      expect([...greeted.keys()].sort()).toEqual(["db-1", "db-2", "db-3"]);

      const clientSeries = await client.metrics();
      for (const [i, p] of pods.entries()) {
        // The client's side: mTLS to the pod's proxy, with the pod's identity...
        expect(
          sum(clientSeries, "tcp_open_total", {
            direction: "outbound",
            peer: "dst",
            target_addr: `${p.ip}:${PORT}`,
            tls: "true",
            server_id: podIdentity("db"),
          }),
        ).toBe(greeted.get(p.name));
        // ...and the pod's proxy's: accepted for the app's port, from the client's identity.
        const serverSeries = await servers[i]?.metrics();
        expect(
          sum(serverSeries ?? [], "tcp_open_total", {
            direction: "inbound",
            peer: "src",
            target_addr: `${p.ip}:${PORT}`,
            tls: "true",
            client_id: podIdentity("client"),
          }),
        ).toBe(greeted.get(p.name));
      }
    },
  );
});
