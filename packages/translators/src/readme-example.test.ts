// Runs the example of README.md through the public API.
import { type AddressSet, newAddress } from "@destination/core";
import {
  type DestinationProfile,
  DestinationProfileSchema,
  toJson,
  type Update,
  UpdateSchema,
} from "@destination/proto";
import { expect, it } from "vitest";
import {
  createServiceProfileStream,
  EndpointTranslation,
  EndpointTranslator,
  type MessageSink,
} from "./index.js";

it("README example", () => {
  // Once per server (per cluster config):
  const translation = new EndpointTranslation({
    controllerNamespace: "linkerd",
    identityTrustDomain: "cluster.local",
    enableH2Upgrade: true,
    forceOpaqueTransport: false,
    extEndpointZoneWeights: false,
    defaultOpaquePorts: new Set([3306]),
  });

  // Per Get stream: a sink over the stream's bounded queue, and a translator.
  const queue: Update[] = [];
  const sink: MessageSink<Update> = {
    send: (update) => queue.length < 100 && queue.push(update) > 0,
  };
  const translator = new EndpointTranslator(translation.forZone("zone-a"), sink);

  // What the endpoints watcher hands its listeners.
  const set: AddressSet = {
    addresses: new Map([
      [
        "ns/gateway-10.0.0.1-8080/",
        {
          id: { namespace: "ns", name: "gateway-10.0.0.1-8080", ipFamily: "" },
          address: newAddress({ ip: "10.0.0.1", port: 8080, identity: "gateway.ns.id" }),
        },
      ],
    ]),
    labels: { namespace: "ns", service: "web" },
  };
  translator.add(set);

  expect(queue.map((u) => toJson(UpdateSchema, u))).toEqual([
    {
      add: {
        addrs: [
          {
            addr: { ip: { ipv4: 167772161 }, port: 8080 },
            weight: 10000,
            metricLabels: { zone_locality: "unknown" },
            tlsIdentity: { dnsLikeIdentity: { name: "gateway.ns.id" } },
            protocolHint: { h2: {} },
          },
        ],
        metricLabels: { namespace: "ns", service: "web" },
      },
    },
  ]);

  // Per GetProfile stream on a service:
  const profiles: DestinationProfile[] = [];
  const stream = createServiceProfileStream({
    fqn: "web.ns.svc.cluster.local",
    service: { namespace: "ns", name: "web" },
    port: 3306,
    tokenNamespace: "",
    sink: { send: (profile) => profiles.push(profile) > 0 },
  });
  // The server subscribes these to the OpaquePortsWatcher and the ProfileWatcher; here we
  // play the watchers: the Service has the default opaque ports, and no ServiceProfile exists.
  stream.opaquePortsListener.updateService(new Set([3306]));
  for (const { listener } of stream.profileSubscriptions) listener.update(null);

  expect(profiles.map((p) => toJson(DestinationProfileSchema, p))).toEqual([
    {
      fullyQualifiedName: "web.ns.svc.cluster.local",
      opaqueProtocol: true,
      retryBudget: { retryRatio: 0.2, minRetriesPerSecond: 10, ttl: "10s" },
      parentRef: {
        resource: { group: "core", kind: "Service", name: "web", namespace: "ns", port: 3306 },
      },
      profileRef: { resource: { group: "linkerd.io" } },
    },
  ]);
});
