import { newAddress } from "@destination/core";
import { type DestinationProfile, DestinationProfileSchema, toJson } from "@destination/proto";
import { meshedPod, unmeshedPod } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import {
  collectingSink,
  config,
  podAddress,
  recordingLogger,
} from "../../test/support/fixtures.js";
import { EndpointProfileTranslator } from "./endpoint-profile-translator.js";

const IDENTITY = "serviceaccount-name.ns.serviceaccount.identity.linkerd.trust.domain";
const DEFAULT_BUDGET = { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: "10s" };
const withDefaults = { ...config, defaultOpaquePorts: new Set([3306]) };

function translator(accept = true) {
  const sink = collectingSink<DestinationProfile>(accept);
  const logger = recordingLogger();
  const t = new EndpointProfileTranslator(withDefaults, sink, logger);
  const json = () => sink.sent.map((p) => toJson(DestinationProfileSchema, p));
  return { t, sink, logger, json };
}

describe("EndpointProfileTranslator", () => {
  it("marks an unmeshed pod on a default opaque port opaque, without a hint", () => {
    const { t, json } = translator();
    t.update(podAddress("10.0.0.1", 3306, unmeshedPod("db-0")));
    expect(json()).toEqual([
      {
        retryBudget: DEFAULT_BUDGET,
        endpoint: {
          addr: { ip: { ipv4: 167772161 }, port: 3306 },
          weight: 10000,
          metricLabels: {
            pod: "db-0",
            replicationcontroller: "rc-name",
            serviceaccount: "serviceaccount-name",
            zone: "",
            namespace: "ns",
          },
        },
        opaqueProtocol: true,
      },
    ]);
  });

  it("gives a meshed pod on an annotated port opaque hints, transport and the namespace label", () => {
    const { t, json } = translator();
    const pod = meshedPod("pod1", { annotations: { "config.linkerd.io/opaque-ports": "4242" } });
    t.update(podAddress("10.0.0.1", 4242, pod, { ownerKind: "deployment", ownerName: "web" }));
    expect(json()).toEqual([
      {
        retryBudget: DEFAULT_BUDGET,
        endpoint: {
          addr: { ip: { ipv4: 167772161 }, port: 4242 },
          weight: 10000,
          metricLabels: {
            pod: "pod1",
            deployment: "web",
            serviceaccount: "serviceaccount-name",
            control_plane_ns: "linkerd",
            zone: "",
            namespace: "ns",
          },
          tlsIdentity: { dnsLikeIdentity: { name: IDENTITY }, serverName: { name: IDENTITY } },
          protocolHint: { opaque: {}, opaqueTransport: { inboundPort: 4143 } },
        },
        opaqueProtocol: true,
      },
    ]);
  });

  it("counts a Server's opaque flag", () => {
    const { t, json } = translator();
    t.update(podAddress("10.0.0.1", 8080, unmeshedPod("p"), { opaqueProtocol: true }));
    expect(json()[0]).toMatchObject({ opaqueProtocol: true });
  });

  it("keeps an ExternalWorkload owner kind as the watcher gives it, and adds the namespace", () => {
    const { t, json } = translator();
    t.update(
      newAddress({
        ip: "10.0.0.5",
        port: 8080,
        externalWorkload: {
          metadata: { name: "ew-1", namespace: "vm" },
          spec: { meshTLS: { identity: "spiffe://td/ew-1", serverName: "ew-1.vm" } },
        },
        ownerKind: "ExternalGroup",
        ownerName: "group-1",
      }),
    );
    expect(json()).toEqual([
      {
        retryBudget: DEFAULT_BUDGET,
        endpoint: {
          addr: { ip: { ipv4: 167772165 }, port: 8080 },
          weight: 10000,
          metricLabels: {
            external_workload: "ew-1",
            ExternalGroup: "group-1",
            zone: "",
            namespace: "vm",
          },
          tlsIdentity: {
            uriLikeIdentity: { uri: "spiffe://td/ew-1" },
            serverName: { name: "ew-1.vm" },
          },
          protocolHint: { h2: {} },
        },
      },
    ]);
  });

  it("serves an IP without workload as a bare endpoint, opaque by the default ports", () => {
    const { t, json } = translator();
    t.update(newAddress({ ip: "10.0.0.9", port: 3306 }));
    t.update(newAddress({ ip: "10.0.0.9", port: 80 }));
    expect(json()).toEqual([
      {
        retryBudget: DEFAULT_BUDGET,
        endpoint: { addr: { ip: { ipv4: 167772169 }, port: 3306 }, weight: 10000 },
        opaqueProtocol: true,
      },
      {
        retryBudget: DEFAULT_BUDGET,
        endpoint: { addr: { ip: { ipv4: 167772169 }, port: 80 }, weight: 10000 },
      },
    ]);
  });

  it("sends only when the profile differs from the last one sent", () => {
    const { t, sink } = translator();
    const bare = newAddress({ ip: "10.0.0.9", port: 80 });
    t.update(bare);
    t.update({ ...bare });
    t.update(podAddress("10.0.0.9", 80, unmeshedPod("p")));
    t.update(podAddress("10.0.0.9", 80, unmeshedPod("p")));
    t.update(bare);
    expect(sink.sent.map((p) => p.endpoint?.metricLabels.pod)).toEqual([undefined, "p", undefined]);
  });

  it("compares with the last profile the sink accepted, not the last one offered", () => {
    const { t, sink } = translator(false);
    const bare = newAddress({ ip: "10.0.0.9", port: 80 });
    t.update(bare);
    t.update(bare);
    expect(sink.sent).toHaveLength(2);
  });

  it("sends nothing and logs when the endpoint cannot be built", () => {
    const { t, sink, logger } = translator();
    t.update(podAddress("10.0.0.1", 80, meshedPod("p", { env: [] })));
    t.update(newAddress({ ip: "db.example.com", port: 80 }));
    expect(sink.sent).toEqual([]);
    expect(logger.entries.map((e) => e.level)).toEqual(["error", "error"]);
    t.update(podAddress("10.0.0.1", 80, meshedPod("p")));
    expect(sink.sent).toHaveLength(1);
  });
});
