import {
  CLUSTER_POD,
  pod,
  podEndpoint,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { get, getProfile, ipv4 } from "@destination/test-support/server";
import { afterEach, describe, expect, it } from "vitest";
import { ManifestFolder } from "./support/manifest-folder.js";
import { startTestServer, type TestServer } from "./support/test-server.js";

const NS = "shop";
const PATH = "cart.shop.svc.cluster.local:8080";

let server: TestServer | undefined;
let folder: ManifestFolder | undefined;
afterEach(async () => {
  await server?.close();
  await folder?.dispose();
  server = undefined;
  folder = undefined;
});

const cartPod = (name: string, ip: string) =>
  pod(name, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    meshed: false,
    labels: {},
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });
const unmeshedAddr = (ip: string, name: string) => ({
  addr: { ip: { ipv4: ipv4(ip) }, port: 8080 },
  weight: 10000,
  metricLabels: { pod: name, serviceaccount: "default", zone: "", zone_locality: "unknown" },
});
const labels = { namespace: NS, service: "cart" };

describe("serving a folder of manifests", () => {
  it("streams the changes made to files", async () => {
    folder = await ManifestFolder.create();
    await folder.write(
      "service.yaml",
      service("cart", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }),
    );
    await folder.write("pods.yaml", cartPod("cart-a", "10.2.0.1"), cartPod("cart-b", "10.2.0.2"));
    await folder.write(
      "slice-a.yaml",
      slice("cart-a", "cart", [podEndpoint("cart-a", "10.2.0.1", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    await folder.write(
      "slice-b.yaml",
      slice("cart-b", "cart", [podEndpoint("cart-b", "10.2.0.2", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    server = await startTestServer({ manifests: folder.dir });
    const stream = get(server.client, PATH);
    expect(await stream.next()).toEqual({
      add: {
        addrs: [unmeshedAddr("10.2.0.1", "cart-a"), unmeshedAddr("10.2.0.2", "cart-b")],
        metricLabels: labels,
      },
    });

    // Seed scenario: one of two slices goes; the other slice's address stays.
    await folder.remove("slice-a.yaml");
    expect(await stream.next()).toEqual({
      remove: { addrs: [{ ip: { ipv4: ipv4("10.2.0.1") }, port: 8080 }] },
    });

    // An edit that adds an endpoint to the remaining slice.
    await folder.write("pods.yaml", cartPod("cart-b", "10.2.0.2"), cartPod("cart-c", "10.2.0.3"));
    await folder.write(
      "slice-b.yaml",
      slice(
        "cart-b",
        "cart",
        [
          podEndpoint("cart-b", "10.2.0.2", { namespace: NS }),
          podEndpoint("cart-c", "10.2.0.3", { namespace: NS }),
        ],
        { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
      ),
    );
    expect(await stream.next()).toEqual({
      add: { addrs: [unmeshedAddr("10.2.0.3", "cart-c")], metricLabels: labels },
    });

    // The Service's file goes: every address is removed.
    await folder.remove("service.yaml");
    expect(await stream.next()).toEqual({
      remove: {
        addrs: [
          { ip: { ipv4: ipv4("10.2.0.2") }, port: 8080 },
          { ip: { ipv4: ipv4("10.2.0.3") }, port: 8080 },
        ],
      },
    });
    stream.cancel();
  });

  it("keeps serving through broken files and picks them up once fixed", async () => {
    folder = await ManifestFolder.create();
    await folder.write(
      "service.yaml",
      service("cart", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }),
    );
    await folder.writeText("broken.yaml", "kind: [unclosed\n  - {{{\n");
    await folder.writeText("odd.yaml", "just a string\n---\n42\n---\nkind: Pod\n");
    server = await startTestServer({ manifests: folder.dir });
    const stream = get(server.client, PATH);
    await server.waitForMetric(
      "endpoints_subscribers",
      { namespace: NS, service: "cart", port: "8080" },
      1,
    );
    await folder.write(
      "broken.yaml",
      cartPod("cart-a", "10.2.0.1"),
      slice("cart-a", "cart", [podEndpoint("cart-a", "10.2.0.1", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    expect(await stream.next()).toEqual({
      add: { addrs: [unmeshedAddr("10.2.0.1", "cart-a")], metricLabels: labels },
    });
    // Breaking the file again keeps its last good objects: nothing is removed.
    await folder.writeText("broken.yaml", "kind: [unclosed\n");
    // Pod before slice, in one file: a slice endpoint whose pod is not cached yet is skipped.
    await folder.write(
      "extra.yaml",
      cartPod("cart-z", "10.2.0.9"),
      slice("cart-z", "cart", [podEndpoint("cart-z", "10.2.0.9", { namespace: NS })], {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    expect(await stream.next()).toEqual({
      add: { addrs: [unmeshedAddr("10.2.0.9", "cart-z")], metricLabels: labels },
    });
    stream.cancel();
  });

  it("sends nothing for a ServiceProfile with nulls and serves it once repaired", async () => {
    folder = await ManifestFolder.create();
    await folder.write(
      "service.yaml",
      service("cart", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }),
    );
    const fqn = "cart.shop.svc.cluster.local";
    await folder.writeText(
      "profile.yaml",
      [
        "apiVersion: linkerd.io/v1alpha2",
        "kind: ServiceProfile",
        `metadata: { name: ${fqn}, namespace: ${NS} }`,
        "spec:",
        "  routes:",
        "    - null",
        "    - name: r",
        "      condition: { pathRegex: /x }",
        "      responseClasses: [null]",
      ].join("\n"),
    );
    server = await startTestServer({ manifests: folder.dir });
    const stream = getProfile(server.client, PATH);
    await server.waitForMetric("profile_subscribers", { namespace: NS, profile: fqn }, 1);
    await folder.write(
      "profile.yaml",
      serviceProfile(
        fqn,
        { routes: [{ name: "r", condition: { pathRegex: "/x" } }] },
        { namespace: NS },
      ),
    );
    expect(await stream.next()).toMatchObject({
      fullyQualifiedName: fqn,
      routes: [{ condition: { path: { regex: "/x" } }, metricsLabels: { route: "r" } }],
    });
    stream.cancel();
  });
});
