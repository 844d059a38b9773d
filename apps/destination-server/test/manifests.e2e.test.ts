import {
  get,
  getProfile,
  ipv4,
  pod,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/server";
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
  pod({ namespace: NS, name, ip, ports: [["http", 8080]], meshed: false });
const unmeshedAddr = (ip: string, name: string) => ({
  addr: { ip: { ipv4: ipv4(ip) }, port: 8080 },
  weight: 10000,
  metricLabels: { pod: name, serviceaccount: "default", zone: "", zone_locality: "unknown" },
});
const labels = { namespace: NS, service: "cart" };

describe("serving a folder of manifests", () => {
  it("streams the changes made to files", async () => {
    folder = await ManifestFolder.create();
    await folder.write("service.yaml", service(NS, "cart", [{ port: 8080 }]));
    await folder.write("pods.yaml", cartPod("cart-a", "10.2.0.1"), cartPod("cart-b", "10.2.0.2"));
    await folder.write(
      "slice-a.yaml",
      slice(NS, "cart-a", "cart", [{ port: 8080 }], [{ ip: "10.2.0.1", pod: "cart-a" }]),
    );
    await folder.write(
      "slice-b.yaml",
      slice(NS, "cart-b", "cart", [{ port: 8080 }], [{ ip: "10.2.0.2", pod: "cart-b" }]),
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
        NS,
        "cart-b",
        "cart",
        [{ port: 8080 }],
        [
          { ip: "10.2.0.2", pod: "cart-b" },
          { ip: "10.2.0.3", pod: "cart-c" },
        ],
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
    await folder.write("service.yaml", service(NS, "cart", [{ port: 8080 }]));
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
      slice(NS, "cart-a", "cart", [{ port: 8080 }], [{ ip: "10.2.0.1", pod: "cart-a" }]),
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
      slice(NS, "cart-z", "cart", [{ port: 8080 }], [{ ip: "10.2.0.9", pod: "cart-z" }]),
    );
    expect(await stream.next()).toEqual({
      add: { addrs: [unmeshedAddr("10.2.0.9", "cart-z")], metricLabels: labels },
    });
    stream.cancel();
  });

  it("sends nothing for a ServiceProfile with nulls and serves it once repaired", async () => {
    folder = await ManifestFolder.create();
    await folder.write("service.yaml", service(NS, "cart", [{ port: 8080 }]));
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
      serviceProfile(NS, fqn, { routes: [{ name: "r", condition: { pathRegex: "/x" } }] }),
    );
    expect(await stream.next()).toMatchObject({
      fullyQualifiedName: fqn,
      routes: [{ condition: { path: { regex: "/x" } }, metricsLabels: { route: "r" } }],
    });
    stream.cancel();
  });
});
