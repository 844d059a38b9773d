// Scenario 2: a meshed server side. Our Update gives meshed endpoints their TLS identity and
// the HTTP/2 protocol hint, so the client proxy opens mTLS to the server proxy in front of the
// pod and multiplexes requests over one HTTP/2 connection; an endpoint of a pod without the
// proxy gets plain HTTP/1.1, one connection per request in flight.
import { expect, it } from "vitest";
import { fqdn, node, PROXY_INBOUND_PORT, podIdentity } from "../src/cluster-objects.js";
import {
  clientProxyOptions,
  SERVER_PROXY_UID,
  serverProxyOptions,
  serviceObjects,
  WEB,
  webPod,
} from "../src/fixtures.js";
import { meshPerTest } from "../src/mesh-per-test.js";
import { sum } from "../src/prometheus-text.js";
import { ingressSender, podOf } from "../src/traffic.js";

const meshes = meshPerTest();

const PLAIN = { name: "plain", clusterIP: "10.96.0.20", port: 80, targetPort: 8080 } as const;
const IN_FLIGHT = 8;
const SLOW_MS = 400;

it("meshed endpoints get mTLS with the client's identity over one HTTP/2 connection; an unmeshed one gets plain HTTP/1.1", async () => {
  const mesh = await meshes.create({ kind: "manifests" });
  const meshed = webPod(1, { meshed: true, serviceAccount: "web" });
  const plain = { name: "plain-1", app: PLAIN.name, ip: "10.244.1.11", port: 8080 };
  // Slow answers keep all requests in flight at once: HTTP/1.1 then needs a connection each.
  for (const p of [meshed, plain]) {
    await mesh.agent.httpPod(p.name, p.ip, p.port, { mode: "slow", delayMs: SLOW_MS });
  }
  await mesh.apply(node(), ...serviceObjects(WEB, [meshed]), ...serviceObjects(PLAIN, [plain]));
  // What the proxy injector's iptables do in the meshed pod: its inbound traffic goes to its proxy.
  mesh.ns.redirect(`${meshed.ip}/32`, PROXY_INBOUND_PORT, SERVER_PROXY_UID, meshed.port);
  await mesh.startServer();
  const server = await mesh.startProxy(serverProxyOptions("web", [meshed.ip]));
  const client = await mesh.startProxy(clientProxyOptions(true));
  const outbound = await mesh.agent.forward(
    "client-outbound",
    "127.0.0.1",
    client.options.ports.outbound,
  );
  const clientId = podIdentity("client");

  const toWeb = ingressSender(outbound, fqdn(WEB.name, WEB.port));
  const toPlain = ingressSender(outbound, fqdn(PLAIN.name, PLAIN.port));
  const [webAnswers, plainAnswers] = await Promise.all([
    Promise.all(Array.from({ length: IN_FLIGHT }, () => toWeb())),
    Promise.all(Array.from({ length: IN_FLIGHT }, () => toPlain())),
  ]);

  // The pods' own view: the server proxy tells the app who called (l5d-client-id) after mTLS.
  for (const a of webAnswers)
    expect(podOf(a)).toEqual(expect.objectContaining({ pod: "web-1", clientId }));
  for (const a of plainAnswers)
    expect(podOf(a)).toEqual(expect.objectContaining({ pod: "plain-1", clientId: null }));

  const serverSeries = await server.metrics();
  expect(
    sum(serverSeries, "request_total", {
      direction: "inbound",
      target_addr: `${meshed.ip}:${meshed.port}`,
      tls: "true",
      client_id: clientId,
    }),
  ).toBe(IN_FLIGHT);
  expect(sum(serverSeries, "request_total", { target_addr: `${plain.ip}:${plain.port}` })).toBe(0);

  const clientSeries = await client.metrics();
  const meshedConnections = sum(clientSeries, "tcp_open_total", {
    direction: "outbound",
    peer: "dst",
    target_addr: `${meshed.ip}:${meshed.port}`,
    tls: "true",
    server_id: podIdentity("web"),
  });
  const plainConnections = sum(clientSeries, "tcp_open_total", {
    direction: "outbound",
    peer: "dst",
    target_addr: `${plain.ip}:${plain.port}`,
    tls: "no_identity",
    no_tls_reason: "not_provided_by_service_discovery",
  });
  // HTTP/2 (the protocol hint): all requests in flight on one connection.
  expect(meshedConnections).toBe(1);
  // HTTP/1.1: more than one connection for requests in flight together.
  expect(plainConnections).toBeGreaterThan(1);
});
