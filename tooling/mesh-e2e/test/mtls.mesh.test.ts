// Scenario 3: mTLS between two meshed pods whose certificates upstream's identity controller
// issued (from the release's issuer, for the service-account tokens the TokenRequest API made).
// The destination service's Update names the web pod's identity; the client proxy opens mTLS
// to the web pod's proxy with it, and that proxy tells the app who called.
import { fqdn, node, podIdentity } from "@destination/proxy-e2e/cluster-objects";
import { serviceObjects } from "@destination/proxy-e2e/fixtures";
import { sum } from "@destination/proxy-e2e/prometheus-text";
import { podOf, sidecarSender } from "@destination/proxy-e2e/traffic";
import { describe, expect, it } from "vitest";
import { CLIENT, WEB, webPod } from "../src/cast.js";
import { DESTINATIONS } from "../src/destination-controller.js";
import { meshFile, meshWith } from "../src/mesh-lifecycle.js";

const file = meshFile();
const REQUESTS = 10;
const HOUR_S = 3600;

describe.each(DESTINATIONS)("with %s destination service", (kind) => {
  const mesh = meshWith(file, kind);

  it("carries the client's requests to the meshed web pod over mTLS with both identities", async () => {
    const w = await mesh.workloads();
    const web = webPod(1, { meshed: true, serviceAccount: "web" });
    await w.serveApp(web);
    await w.apply(node(), ...serviceObjects(WEB, [web]));
    const server = await w.startServerProxy(web);
    const client = await w.startClientPod(CLIENT);
    const socket = await w.agent.forward("web-clusterip", WEB.clusterIP, WEB.port);
    const send = sidecarSender(socket, fqdn(WEB.name, WEB.port));
    const clientId = podIdentity("client");

    for (let i = 0; i < REQUESTS; i++) {
      const answer = await send();
      expect(answer.status).toBe(200);
      // The app's view: its proxy verified the caller's certificate and says who it is.
      expect(podOf(answer)).toEqual(expect.objectContaining({ pod: "web-1", clientId }));
    }

    expect(
      sum(await server.metrics(), "request_total", {
        direction: "inbound",
        target_addr: `${web.ip}:${web.port}`,
        tls: "true",
        client_id: clientId,
      }),
    ).toBe(REQUESTS);
    console.log(
      (await client.metricsText())
        .split("\n")
        .filter((l) => /^control_(request|response)_total/.test(l))
        .join("\n"),
    );
    const clientSeries = await client.metrics();
    expect(
      sum(clientSeries, "tcp_open_total", {
        direction: "outbound",
        peer: "dst",
        target_addr: `${web.ip}:${web.port}`,
        tls: "true",
        server_id: podIdentity("web"),
      }),
    ).toBeGreaterThanOrEqual(1);
    // Both certificates are upstream's: it issues for the chart's -identity-issuance-lifetime
    // (24h), where proxy-e2e's own test CA issues for one hour.
    for (const proxy of [client, server]) {
      const expiry = sum(
        await proxy.metrics(),
        "control_identity_cert_expiration_timestamp_seconds",
      );
      const lifetime = expiry - Date.now() / 1000;
      expect(lifetime).toBeGreaterThan(23 * HOUR_S);
      expect(lifetime).toBeLessThan(25 * HOUR_S);
    }
    // And the control plane as the chart addresses it: by the headless Services' names, over
    // mTLS to the control-plane pods' own proxies (or plaintext loopback, see the README).
    const controlPlane = sum(clientSeries, "control_request_total", {
      addr: "linkerd-dst-headless.linkerd.svc.cluster.local:8086",
      tls: "true",
      server_id: "linkerd-destination.linkerd.serviceaccount.identity.linkerd.cluster.local",
    });
    if (file.addressing === "chart") expect(controlPlane).toBeGreaterThan(0);
    else
      expect(
        sum(clientSeries, "control_request_total", { no_tls_reason: "loopback" }),
      ).toBeGreaterThan(0);
  });
});
