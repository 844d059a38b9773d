import { MemoryCluster } from "@destination/k8s-discovery";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import type { EndpointTranslatorConfig } from "@destination/translators";
import { describe, expect, it } from "vitest";
import { type GetPathWarmUpOptions, warmGetPath } from "./get-path-warm-up.js";

const NS = "shop";

const TRANSLATOR_CONFIG: EndpointTranslatorConfig = {
  controllerNamespace: "linkerd",
  identityTrustDomain: "cluster.local",
  enableH2Upgrade: true,
  forceOpaqueTransport: false,
  meshedHttp2ClientParams: undefined,
  extEndpointZoneWeights: false,
  defaultOpaquePorts: new Set(),
};

/** Three Services with an endpoint each, one ExternalName and one without ports. */
async function shop(): Promise<MemoryCluster> {
  const cluster = new MemoryCluster();
  cluster.apply(
    service("a-external", {
      namespace: NS,
      ports: [{ port: 80, protocol: "TCP" }],
      type: "ExternalName",
    }),
  );
  cluster.apply(service("b-headless", { namespace: NS, ports: [] }));
  for (const [i, name] of ["cart", "checkout", "catalog"].entries()) {
    const ip = `10.244.0.${i + 1}`;
    cluster.apply(
      service(name, { namespace: NS, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
    );
    cluster.apply(
      pod(`${name}-0`, {
        ...CLUSTER_POD,
        namespace: NS,
        ip,
        labels: {},
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(`${name}-1`, name, [podEndpoint(`${name}-0`, ip, { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
  }
  await cluster.start();
  return cluster;
}

function options(overrides: Partial<GetPathWarmUpOptions>): GetPathWarmUpOptions {
  return {
    enableEndpointSlices: true,
    enableIPv6: true,
    clusterDomain: "cluster.local",
    translatorConfig: TRANSLATOR_CONFIG,
    services: 256,
    clock: { now: () => 0 },
    ...overrides,
  };
}

describe("warmGetPath", () => {
  it("runs the Services a proxy can resolve by name, up to the count", async () => {
    const cluster = await shop();
    expect(warmGetPath(cluster, options({})).services).toBe(3);
    expect(warmGetPath(cluster, options({ services: 2 })).services).toBe(2);
    expect(warmGetPath(cluster, options({ services: 0 })).services).toBe(0);
  });

  it("stops once its time budget is spent", async () => {
    const cluster = await shop();
    // Every reading of the clock is 60 ms after the one before: the first Service starts at
    // 60 ms, the second would start at 120.
    let readings = 0;
    const clock = { now: () => 60 * readings++ };
    const warmUp = warmGetPath(cluster, options({ clock, budgetMs: 100 }));
    expect(warmUp.services).toBe(1);
  });
});
