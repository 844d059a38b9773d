import { newAddress } from "@destination/core";
import {
  create,
  fromBinary,
  Http2ClientParams_KeepAliveSchema,
  Http2ClientParamsSchema,
  toBinary,
  toJson,
  type Update,
  UpdateSchema,
  WeightedAddrSchema,
} from "@destination/proto";
import { meshedPod, unmeshedPod } from "@destination/test-support/builders";
import { describe, expect, it } from "vitest";
import {
  addressSet,
  collectingSink,
  config,
  podAddress,
  recordingLogger,
  wireFields,
} from "../../test/support/fixtures.js";
import type { EndpointTranslatorConfig } from "../contracts.js";
import { EndpointTranslation, EndpointTranslator } from "./endpoint-translator.js";

const IDENTITY = "serviceaccount-name.ns.serviceaccount.identity.linkerd.trust.domain";
const SET_LABELS = { namespace: "service-ns", service: "service-name" };

function translate(
  addresses: Parameters<typeof addressSet>[0],
  options: { config?: EndpointTranslatorConfig; zone?: string } = {},
) {
  const logger = recordingLogger();
  const sink = collectingSink<Update>();
  const translation = new EndpointTranslation(options.config ?? config, logger);
  const translator = new EndpointTranslator(translation.forZone(options.zone ?? ""), sink);
  translator.add(addressSet(addresses));
  return { sent: sink.sent, json: sink.sent.map((u) => toJson(UpdateSchema, u)), logger };
}

describe("EndpointTranslator add", () => {
  it("translates a meshed pod: identity, h2 hint and the pod metric labels", () => {
    const { json } = translate([podAddress("1.1.1.1", 1, meshedPod("pod1"))]);
    expect(json).toEqual([
      {
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: 16843009 }, port: 1 },
              weight: 10000,
              metricLabels: {
                pod: "pod1",
                replicationcontroller: "rc-name",
                serviceaccount: "serviceaccount-name",
                control_plane_ns: "linkerd",
                zone: "",
                zone_locality: "unknown",
              },
              tlsIdentity: {
                dnsLikeIdentity: { name: IDENTITY },
                serverName: { name: IDENTITY },
              },
              protocolHint: { h2: {} },
            },
          ],
          metricLabels: SET_LABELS,
        },
      },
    ]);
  });

  it("writes a job owner as k8s_job and adds pod_template_hash; an empty SA and namespace read as default", () => {
    const pod = meshedPod("pod1", {
      labels: { "pod-template-hash": "5d9f" },
      serviceAccountName: "",
    });
    pod.metadata.namespace = "";
    const { sent } = translate([
      podAddress("1.1.1.1", 1, pod, { ownerKind: "job", ownerName: "nightly-1" }),
    ]);
    const wa = sent[0]?.update.case === "add" ? sent[0].update.value.addrs[0] : undefined;
    expect(toJson(WeightedAddrSchema, wa ?? create(WeightedAddrSchema))).toMatchObject({
      metricLabels: {
        pod: "pod1",
        k8s_job: "nightly-1",
        serviceaccount: "default",
        control_plane_ns: "linkerd",
        pod_template_hash: "5d9f",
        zone: "",
        zone_locality: "unknown",
      },
      tlsIdentity: {
        dnsLikeIdentity: {
          name: "default.default.serviceaccount.identity.linkerd.trust.domain",
        },
      },
    });
  });

  it("translates an IPv6 pod address into first/last halves", () => {
    const pod = meshedPod("pod3");
    const { json } = translate([podAddress("2001:0db8:85a3:0000:0000:8a2e:0370:7334", 3, pod)]);
    expect(json[0]).toMatchObject({
      add: {
        addrs: [
          {
            addr: {
              ip: { ipv6: { first: "2306139570357600256", last: "151930230829876" } },
              port: 3,
            },
          },
        ],
      },
    });
  });

  it("keeps a present but empty protocol_hint for a meshed pod when h2 upgrade is off", () => {
    const { sent, json } = translate([podAddress("1.1.1.1", 1, meshedPod("pod1"))], {
      config: { ...config, enableH2Upgrade: false },
    });
    expect(json[0]).toMatchObject({ add: { addrs: [{ protocolHint: {} }] } });
    const wa = sent[0]?.update.case === "add" ? sent[0].update.value.addrs[0] : undefined;
    if (wa === undefined) throw new Error("no address");
    // Field 6 (protocol_hint) is on the wire with a zero-length payload.
    expect(wireFields(toBinary(WeightedAddrSchema, wa))).toContainEqual({ field: 6, length: 0 });
    expect(
      fromBinary(WeightedAddrSchema, toBinary(WeightedAddrSchema, wa)).protocolHint,
    ).toBeDefined();
  });

  it("gives an unmeshed pod labels only: no hint, no identity", () => {
    const { json } = translate([podAddress("10.0.0.1", 8080, unmeshedPod("web-1"))]);
    expect(json).toEqual([
      {
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: 167772161 }, port: 8080 },
              weight: 10000,
              metricLabels: {
                pod: "web-1",
                replicationcontroller: "rc-name",
                serviceaccount: "serviceaccount-name",
                zone: "",
                zone_locality: "unknown",
              },
            },
          ],
          metricLabels: SET_LABELS,
        },
      },
    ]);
  });

  it("gives a pod of another control plane hints but no identity", () => {
    const pod = meshedPod("pod1", { labels: { "linkerd.io/control-plane-ns": "other" } });
    const { json } = translate([podAddress("1.1.1.1", 1, pod)]);
    expect(json[0]).toMatchObject({ add: { addrs: [{ protocolHint: { h2: {} } }] } });
    expect(json[0]).not.toHaveProperty("add.addrs.0.tlsIdentity");
  });

  it("marks an annotated opaque port opaque with opaque transport to the proxy inbound port", () => {
    const pod = meshedPod("pod1", { annotations: { "config.linkerd.io/opaque-ports": "http" } });
    const { json } = translate([podAddress("1.1.1.1", 8080, pod)]);
    expect(json[0]).toMatchObject({
      add: { addrs: [{ protocolHint: { opaque: {}, opaqueTransport: { inboundPort: 4143 } } }] },
    });
  });

  it("uses the default opaque ports when the pod has no annotation, and a Server's opaque flag", () => {
    const defaults = translate([podAddress("1.1.1.1", 3306, meshedPod("db"))], {
      config: { ...config, defaultOpaquePorts: new Set([3306]) },
    });
    const server = translate([
      podAddress("1.1.1.1", 9000, meshedPod("p"), { opaqueProtocol: true }),
    ]);
    for (const { json } of [defaults, server]) {
      expect(json[0]).toMatchObject({
        add: { addrs: [{ protocolHint: { opaque: {}, opaqueTransport: { inboundPort: 4143 } } }] },
      });
    }
  });

  it("forces opaque transport in transport-header mode, except on the proxy's meta ports", () => {
    const forced = { ...config, forceOpaqueTransport: true };
    const { json } = translate(
      [podAddress("1.1.1.1", 8080, meshedPod("a")), podAddress("1.1.1.2", 4191, meshedPod("b"))],
      { config: forced },
    );
    const addrs = (json[0] as { add: { addrs: { protocolHint: unknown }[] } }).add.addrs;
    expect(addrs.map((a) => a.protocolHint)).toEqual([
      { h2: {}, opaqueTransport: { inboundPort: 4143 } },
      { h2: {} },
    ]);
  });

  it("reads the inbound port from the proxy env, native sidecar (init container) first", () => {
    const pod = meshedPod("p", {
      annotations: { "config.linkerd.io/opaque-ports": "8080" },
    });
    pod.spec = {
      ...pod.spec,
      initContainers: [
        {
          name: "linkerd-proxy",
          env: [
            { name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: "[::]:5143" },
            { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "[::]:4191" },
            { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "[::]:4190" },
          ],
        },
      ],
    };
    const { json } = translate([podAddress("1.1.1.1", 8080, pod)]);
    expect(json[0]).toMatchObject({
      add: { addrs: [{ protocolHint: { opaqueTransport: { inboundPort: 5143 } } }] },
    });
  });

  it("gives a skip-inbound port neither hints nor identity; other ports keep both", () => {
    const pod = meshedPod("p", {
      annotations: { "config.linkerd.io/skip-inbound-ports": "22, 8080-8090,bad" },
    });
    const { json, logger } = translate([
      podAddress("10.0.0.1", 8080, pod),
      podAddress("10.0.0.2", 8090, pod),
      podAddress("10.0.0.3", 8091, pod),
    ]);
    const addrs = (
      json[0] as { add: { addrs: { protocolHint?: unknown; tlsIdentity?: unknown }[] } }
    ).add.addrs;
    expect(addrs.map((a) => [a.protocolHint !== undefined, a.tlsIdentity !== undefined])).toEqual([
      [false, false],
      [false, false],
      [true, true],
    ]);
    expect(logger.entries.map((e) => [e.level, e.fields?.item])).toEqual([
      ["warn", "bad"],
      ["warn", "bad"],
      ["warn", "bad"],
    ]);
  });

  it("copies the meshed HTTP/2 client params to meshed pods only", () => {
    const params = create(Http2ClientParamsSchema, {
      keepAlive: create(Http2ClientParams_KeepAliveSchema, {
        interval: { seconds: 10n },
        timeout: { seconds: 3n },
        whileIdle: true,
      }),
    });
    const { json } = translate(
      [podAddress("1.1.1.1", 1, meshedPod("a")), podAddress("1.1.1.2", 1, unmeshedPod("b"))],
      { config: { ...config, meshedHttp2ClientParams: params } },
    );
    const addrs = (json[0] as { add: { addrs: { http2?: unknown }[] } }).add.addrs;
    expect(addrs.map((a) => a.http2)).toEqual([
      { keepAlive: { interval: "10s", timeout: "3s", whileIdle: true } },
      undefined,
    ]);
  });

  it("drops a meshed pod whose proxy env cannot be read, logs it, and keeps the others", () => {
    const broken = [
      meshedPod("no-proxy", { env: [] }),
      meshedPod("templated", {
        env: [
          { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "$(POD_IP):4191" },
          { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
        ],
      }),
      meshedPod("no-control", {
        env: [{ name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" }],
      }),
    ];
    broken[0] = { ...broken[0], spec: { containers: [{ name: "app" }] } } as (typeof broken)[0];
    const { json, logger } = translate([
      ...broken.map((pod, i) => podAddress(`10.0.0.${i + 1}`, 8080, pod)),
      podAddress("10.0.0.10", 8080, meshedPod("good")),
    ]);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({
      add: { addrs: [{ addr: { ip: { ipv4: 167772170 } }, metricLabels: { pod: "good" } }] },
    });
    expect(logger.entries.filter((e) => e.level === "error").map((e) => e.fields?.pod)).toEqual([
      "no-proxy",
      "templated",
      "no-control",
    ]);
  });

  it("gives the same reason each time it meets one invalid proxy listen address", () => {
    const env = [
      { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "[10.1.2.3]:4191" },
      { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
    ];
    const { logger } = translate([
      podAddress("10.0.0.1", 8080, meshedPod("a", { env })),
      podAddress("10.0.0.2", 8080, meshedPod("b", { env })),
    ]);
    const reasons = logger.entries.filter((e) => e.level === "error").map((e) => e.fields?.error);
    expect(reasons).toEqual([
      'linkerd-proxy env LINKERD2_PROXY_ADMIN_LISTEN_ADDR="[10.1.2.3]:4191" is not an ip:port (square brackets are for IPv6 only)',
      'linkerd-proxy env LINKERD2_PROXY_ADMIN_LISTEN_ADDR="[10.1.2.3]:4191" is not an ip:port (square brackets are for IPv6 only)',
    ]);
  });

  it("drops an address when the inbound port is needed but missing or 0", () => {
    const env = (inbound: string | undefined) => [
      ...(inbound === undefined
        ? []
        : [{ name: "LINKERD2_PROXY_INBOUND_LISTEN_ADDR", value: inbound }]),
      { name: "LINKERD2_PROXY_ADMIN_LISTEN_ADDR", value: "0.0.0.0:4191" },
      { name: "LINKERD2_PROXY_CONTROL_LISTEN_ADDR", value: "0.0.0.0:4190" },
    ];
    const opaque = { "config.linkerd.io/opaque-ports": "8080" };
    const { json } = translate([
      podAddress("10.0.0.1", 8080, meshedPod("a", { env: env(undefined), annotations: opaque })),
      podAddress("10.0.0.2", 8080, meshedPod("b", { env: env("0.0.0.0:0"), annotations: opaque })),
      // Not opaque, so the inbound port is not needed.
      podAddress("10.0.0.10", 8080, meshedPod("c", { env: env(undefined) })),
    ]);
    expect(json[0]).toMatchObject({ add: { addrs: [{ metricLabels: { pod: "c" } }] } });
    expect((json[0] as { add: { addrs: unknown[] } }).add.addrs).toHaveLength(1);
  });

  it("sends nothing when every address of an add fails translation", () => {
    const { sent, logger } = translate([
      newAddress({ ip: "web.example.com", port: 80 }),
      podAddress("10.0.0.1", 80, meshedPod("x", { env: [] })),
    ]);
    expect(sent).toEqual([]);
    expect(logger.entries.filter((e) => e.level === "error")).toHaveLength(2);
  });

  it("translates an ExternalWorkload address", () => {
    const ew = {
      metadata: { name: "ew-1", namespace: "ns" },
      spec: {
        meshTLS: { identity: "spiffe://trust.domain/ew-1", serverName: "ew-1.ns.cluster.local" },
        ports: [
          { name: "http", port: 8080 },
          { name: "linkerd-proxy", port: 4444 },
        ],
        workloadIPs: [{ ip: "192.168.0.1" }],
      },
    };
    const { json } = translate(
      [
        newAddress({
          ip: "192.168.0.1",
          port: 8080,
          externalWorkload: ew,
          ownerKind: "externalgroup",
          ownerName: "group-1",
          zone: "east",
        }),
      ],
      { config: { ...config, enableH2Upgrade: false }, zone: "east" },
    );
    expect(json).toEqual([
      {
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: 3232235521 }, port: 8080 },
              weight: 10000,
              metricLabels: {
                external_workload: "ew-1",
                externalgroup: "group-1",
                zone: "east",
                zone_locality: "local",
              },
              tlsIdentity: {
                uriLikeIdentity: { uri: "spiffe://trust.domain/ew-1" },
                serverName: { name: "ew-1.ns.cluster.local" },
              },
              protocolHint: { h2: {} },
            },
          ],
          metricLabels: SET_LABELS,
        },
      },
    ]);
  });

  it("gives an opaque ExternalWorkload port opaque transport to its proxy port, 4143 by default", () => {
    const ew = (ports: { name?: string; port: number }[]) => ({
      metadata: {
        name: "ew",
        namespace: "ns",
        annotations: { "config.linkerd.io/opaque-ports": "8080" },
      },
      spec: { meshTLS: { identity: "id", serverName: "sn" }, ports },
    });
    const { json } = translate([
      newAddress({ ip: "10.0.0.1", port: 8080, externalWorkload: ew([{ port: 8080 }]) }),
      newAddress({
        ip: "10.0.0.2",
        port: 8080,
        externalWorkload: ew([{ port: 8080 }, { name: "linkerd-proxy", port: 4444 }]),
      }),
    ]);
    const addrs = (
      json[0] as { add: { addrs: { protocolHint: unknown; metricLabels: unknown }[] } }
    ).add.addrs;
    expect(addrs.map((a) => a.protocolHint)).toEqual([
      { opaque: {}, opaqueTransport: { inboundPort: 4143 } },
      { opaque: {}, opaqueTransport: { inboundPort: 4444 } },
    ]);
    // No owner: no owner label.
    expect(addrs[0]?.metricLabels).toEqual({
      external_workload: "ew",
      zone: "",
      zone_locality: "unknown",
    });
  });

  it("translates a mirrored gateway endpoint: identity without server_name, authority override", () => {
    const { json } = translate([
      newAddress({
        ip: "172.17.0.12",
        port: 9999,
        identity: "gateway-identity-1",
        authorityOverride: "name1-remote-fq:8989",
      }),
    ]);
    expect(json).toEqual([
      {
        add: {
          addrs: [
            {
              addr: { ip: { ipv4: 2886795276 }, port: 9999 },
              weight: 10000,
              metricLabels: { zone_locality: "unknown" },
              tlsIdentity: { dnsLikeIdentity: { name: "gateway-identity-1" } },
              protocolHint: { h2: {} },
              authorityOverride: { authorityOverride: "name1-remote-fq:8989" },
            },
          ],
          metricLabels: SET_LABELS,
        },
      },
    ]);
  });

  it("gives a pod-less endpoint without identity nothing but its address and locality", () => {
    const { json } = translate([newAddress({ ip: "0.0.0.0", port: 80 })]);
    expect(json[0]).toEqual({
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: 0 }, port: 80 },
            weight: 10000,
            metricLabels: { zone_locality: "unknown" },
          },
        ],
        metricLabels: SET_LABELS,
      },
    });
  });

  it("still encodes IPv4 0.0.0.0 on the wire (a set oneof member at its default value)", () => {
    const { sent } = translate([newAddress({ ip: "0.0.0.0", port: 80 })]);
    const wa = sent[0]?.update.case === "add" ? sent[0].update.value.addrs[0] : undefined;
    if (wa?.addr === undefined) throw new Error("no address");
    const bytes = toBinary(WeightedAddrSchema, create(WeightedAddrSchema, { addr: wa.addr }));
    // addr{ ip{ ipv4 (fixed32) = 0 }, port = 80 }
    expect([...bytes]).toEqual([0x0a, 0x09, 0x0a, 0x05, 0x0d, 0, 0, 0, 0, 0x10, 0x50]);
  });

  it("computes zone locality from the caller zone; a present empty zone is remote", () => {
    const zoned = (ip: string, zone: string | null) =>
      podAddress(ip, 80, unmeshedPod(`p-${ip}`), { zone });
    const addresses = [
      zoned("10.0.0.1", "east"),
      zoned("10.0.0.2", "west"),
      zoned("10.0.0.3", ""),
      zoned("10.0.0.4", null),
    ];
    const labelsOf = (json: unknown[]) =>
      (
        json[0] as { add: { addrs: { metricLabels: Record<string, string>; weight: number }[] } }
      ).add.addrs.map((a) => [a.metricLabels.zone, a.metricLabels.zone_locality, a.weight]);
    expect(labelsOf(translate(addresses, { zone: "east" }).json)).toEqual([
      ["east", "local", 10000],
      ["west", "remote", 10000],
      ["", "remote", 10000],
      ["", "unknown", 10000],
    ]);
    expect(labelsOf(translate(addresses, { zone: "" }).json).map((l) => l[1])).toEqual([
      "unknown",
      "unknown",
      "unknown",
      "unknown",
    ]);
    const weighted = translate(addresses, {
      zone: "east",
      config: { ...config, extEndpointZoneWeights: true },
    });
    expect(labelsOf(weighted.json).map((l) => l[2])).toEqual([100000, 10000, 10000, 10000]);
  });

  it("drops an FQDN endpoint with an error log", () => {
    const { json, logger } = translate([
      newAddress({ ip: "db.example.com", port: 5432 }),
      newAddress({ ip: "10.0.0.2", port: 5432 }),
    ]);
    expect((json[0] as { add: { addrs: unknown[] } }).add.addrs).toEqual([
      {
        addr: { ip: { ipv4: 167772162 }, port: 5432 },
        weight: 10000,
        metricLabels: { zone_locality: "unknown" },
      },
    ]);
    expect(logger.entries).toMatchObject([{ level: "error", fields: { ip: "db.example.com" } }]);
  });

  it("sorts addresses by family, IP and port", () => {
    const { json } = translate([
      newAddress({ ip: "fd00::1", port: 80 }),
      newAddress({ ip: "10.0.0.2", port: 80 }),
      newAddress({ ip: "10.0.0.10", port: 80 }),
      newAddress({ ip: "10.0.0.2", port: 79 }),
    ]);
    const addrs = (json[0] as { add: { addrs: { addr: unknown }[] } }).add.addrs.map((a) => a.addr);
    expect(addrs).toEqual([
      { ip: { ipv4: 167772162 }, port: 79 },
      { ip: { ipv4: 167772162 }, port: 80 },
      { ip: { ipv4: 167772170 }, port: 80 },
      { ip: { ipv6: { first: "18230571291595767808", last: "1" } }, port: 80 },
    ]);
  });
});

describe("EndpointTranslator remove", () => {
  it("sends the addresses only, sorted, without labels", () => {
    const sink = collectingSink<Update>();
    const translator = new EndpointTranslator(new EndpointTranslation(config).forZone(""), sink);
    translator.remove(
      addressSet([
        podAddress("10.0.0.2", 8080, meshedPod("b")),
        podAddress("10.0.0.1", 8080, meshedPod("a")),
      ]),
    );
    expect(sink.sent.map((u) => toJson(UpdateSchema, u))).toEqual([
      {
        remove: {
          addrs: [
            { ip: { ipv4: 167772161 }, port: 8080 },
            { ip: { ipv4: 167772162 }, port: 8080 },
          ],
        },
      },
    ]);
  });

  it("sends nothing when no address of a remove can be encoded", () => {
    const sink = collectingSink<Update>();
    const translator = new EndpointTranslator(new EndpointTranslation(config).forZone(""), sink);
    translator.remove(addressSet([newAddress({ ip: "db.example.com", port: 1 })]));
    expect(sink.sent).toEqual([]);
  });
});

describe("EndpointTranslator when an address moves to a new IP or port", () => {
  it("translates an add of the new ip:port then a remove of the old one, in that order", () => {
    const sink = collectingSink<Update>();
    const translator = new EndpointTranslator(new EndpointTranslation(config).forZone(""), sink);
    const before = podAddress("10.0.0.1", 8080, unmeshedPod("web-1"));
    const after = podAddress("10.0.0.2", 8080, unmeshedPod("web-1"));
    translator.add(addressSet([after]));
    translator.remove(addressSet([before]));
    expect(sink.sent.map((u) => [u.update.case, toJson(UpdateSchema, u)])).toMatchObject([
      ["add", { add: { addrs: [{ addr: { ip: { ipv4: 167772162 }, port: 8080 } }] } }],
      ["remove", { remove: { addrs: [{ ip: { ipv4: 167772161 }, port: 8080 }] } }],
    ]);
  });
});

describe("EndpointTranslation sharing", () => {
  it("translates a snapshot once per zone and hands every stream the same Update object", () => {
    const logger = recordingLogger();
    const translation = new EndpointTranslation(config, logger);
    const set = addressSet([
      podAddress("10.0.0.1", 80, meshedPod("a")),
      newAddress({ ip: "not-an-ip", port: 80 }),
    ]);
    const sinks = [collectingSink<Update>(), collectingSink<Update>(), collectingSink<Update>()];
    for (const sink of sinks) new EndpointTranslator(translation.forZone("east"), sink).add(set);
    const other = collectingSink<Update>();
    new EndpointTranslator(translation.forZone("west"), other).add(set);

    expect(translation.forZone("east")).toBe(translation.forZone("east"));
    const [first, ...rest] = sinks.map((s) => s.sent[0]);
    expect(first).toBeDefined();
    for (const u of rest) expect(u).toBe(first);
    expect(other.sent[0]).not.toBe(first);
    // The bad address was logged once per zone, not once per stream.
    expect(logger.entries.filter((e) => e.level === "error")).toHaveLength(2);
  });

  it("never throws into the watcher, even when the sink does", () => {
    const logger = recordingLogger();
    const translator = new EndpointTranslator(
      new EndpointTranslation(config).forZone(""),
      {
        send() {
          throw new Error("stream gone");
        },
      },
      logger,
    );
    expect(() =>
      translator.add(addressSet([newAddress({ ip: "10.0.0.1", port: 1 })])),
    ).not.toThrow();
    expect(logger.entries).toMatchObject([{ level: "error", fields: { error: "stream gone" } }]);
  });
});
