// Scenario 3: opaque ports. A port marked opaque (by the opaque-ports annotation, or by a
// Server with proxyProtocol: opaque) makes our answers say so (GetProfile's opaque_protocol,
// the endpoint's opaque_transport hint), so the client proxy carries the connection as raw TCP
// over mTLS to the server proxy's inbound port, which hands it to the pod: bytes that are not
// HTTP arrive and return unchanged.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type KubeObject,
  node,
  type PodSpec,
  podIdentity,
  server as serverObject,
} from "../src/cluster-objects.js";
import { clientProxyOptions, serverProxyOptions, serviceObjects } from "../src/fixtures.js";
import { tcpExchange } from "../src/http-over-socket.js";
import { SERVICE_CIDR } from "../src/kube-backend.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { sum } from "../src/prometheus-text.js";

const meshes = meshPerTest();

const DB = { name: "db", clusterIP: "10.96.0.30", port: 5432, targetPort: 5432 } as const;

const marks: Record<string, { pod: Partial<PodSpec>; extra: KubeObject[] }> = {
  "the opaque-ports annotation": {
    pod: { annotations: { "config.linkerd.io/opaque-ports": String(DB.targetPort) } },
    extra: [],
  },
  "a Server with proxyProtocol: opaque": {
    pod: {},
    extra: [serverObject("db-opaque", DB.name, DB.targetPort, "opaque")],
  },
};

describe.each(Object.keys(marks))("a port made opaque by %s", (how) => {
  it("carries non-HTTP bytes unchanged through the server proxy's opaque transport port", async () => {
    const mark = marks[how];
    if (mark === undefined) throw new Error(how);
    const mesh = await meshes.create({ kind: "manifests" });
    const db: PodSpec = {
      name: "db-1",
      app: DB.name,
      ip: "10.244.2.11",
      port: DB.targetPort,
      meshed: true,
      serviceAccount: "db",
      ...mark.pod,
    };
    await mesh.agent.tcpPod(db.name, db.ip, db.port);
    await mesh.apply(node(), ...serviceObjects(DB, [db]), ...mark.extra);
    await mesh.startServer();
    const server = await mesh.startProxy(serverProxyOptions("db", [db.ip]));
    // An ingress-mode proxy takes plain TCP by its original destination: the ClusterIP.
    const client = await mesh.startProxy(clientProxyOptions(true));
    mesh.ns.redirect(SERVICE_CIDR, client.options.ports.outbound, client.options.uid);
    const socket = await mesh.agent.forward("db-clusterip", DB.clusterIP, DB.port);

    // Starts like a TLS record and a Postgres startup message, then random bytes: not HTTP.
    const payload = Buffer.concat([
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x08, 0x04, 0xd2, 0x16, 0x2f]),
      randomBytes(64 * 1024),
    ]);
    const greeting = Buffer.from(`${db.name}\n`);
    const back = await tcpExchange(socket, payload, greeting.length + payload.length);
    expect(back.subarray(0, greeting.length).toString()).toBe(greeting.toString());
    expect(back.subarray(greeting.length).equals(payload)).toBe(true);

    // The client proxy opened mTLS to the pod's proxy...
    const clientSeries = await client.metrics();
    expect(
      sum(clientSeries, "tcp_open_total", {
        direction: "outbound",
        peer: "dst",
        target_addr: `${db.ip}:${db.port}`,
        tls: "true",
        server_id: podIdentity("db"),
      }),
    ).toBe(1);
    // ...and the server proxy accepted it, for the pod's port 5432, with the client's identity.
    // Nothing redirects the pod's own port to that proxy (unlike scenario 2), so it can only have
    // come in on the proxy's port 4143, named in the opaque transport hint, with the transport
    // header saying which port it is for.
    const serverSeries = await server.metrics();
    expect(
      sum(serverSeries, "tcp_open_total", {
        direction: "inbound",
        peer: "src",
        target_addr: `${db.ip}:${db.port}`,
        tls: "true",
        client_id: podIdentity("client"),
      }),
    ).toBe(1);
  });
});
