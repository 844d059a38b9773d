// What a cluster change costs, as `destination_translations_total` shows it: a change nothing
// watches costs no translation and sends nothing; a pod's change is translated for the streams
// whose addresses name that pod, once per filter group and zone, and reaches only them.
import { MemoryCluster } from "@destination/k8s-discovery";
import {
  CLUSTER_POD,
  node,
  pod,
  podEndpoint,
  server as policyServer,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { get, getProfile } from "@destination/test-support/server";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./support/server-per-test.js";
import type { TestServer } from "./support/test-server.js";

const NS = "emojivoto";
const fqn = (name: string) => `${name}.${NS}.svc.cluster.local`;

/** A Service on port 80 with one meshed pod behind it, on 8080, in one slice. */
function addService(cluster: MemoryCluster, name: string, ip: string, clusterIP: string): void {
  cluster.apply(
    service(name, {
      namespace: NS,
      ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      clusterIP: clusterIP,
    }),
  );
  cluster.apply(podOf(name, ip));
  cluster.apply(
    slice(`${name}-1`, name, [podEndpoint(`${name}-0`, ip, { namespace: NS })], {
      namespace: NS,
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
    }),
  );
}

function podOf(name: string, ip: string, labels: Record<string, string> = {}) {
  return pod(`${name}-0`, {
    ...CLUSTER_POD,
    namespace: NS,
    ip,
    labels: { app: name, ...labels },
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
  });
}

function threeServices(): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(node("node-a"));
  addService(cluster, "web", "10.244.1.10", "10.96.0.10");
  addService(cluster, "emoji", "10.244.1.20", "10.96.0.20");
  addService(cluster, "vote", "10.244.1.30", "10.96.0.30");
  return cluster;
}

type Counts = Record<"add" | "remove" | "profile" | "endpoint_profile", number>;

async function translations(server: TestServer): Promise<Counts> {
  const read = async (kind: keyof Counts) =>
    (await server.metric("destination_translations_total", { kind })) ?? Number.NaN;
  return {
    add: await read("add"),
    remove: await read("remove"),
    profile: await read("profile"),
    endpoint_profile: await read("endpoint_profile"),
  };
}

const startServer = serverPerTest();

describe("translations per cluster change", () => {
  it("exposes every kind of translation from the start, at zero", async () => {
    const server = await startServer({ cluster: threeServices() });
    expect(await translations(server)).toEqual({
      add: 0,
      remove: 0,
      profile: 0,
      endpoint_profile: 0,
    });
  });

  it("translates and sends nothing for changes to objects no stream depends on", async () => {
    const cluster = threeServices();
    const server = await startServer({ cluster });
    const web = get(server.client, `${fqn("web")}:80`);
    const webProfile = getProfile(server.client, `${fqn("web")}:80`);
    const emoji = get(server.client, `${fqn("emoji")}:80`);
    await web.next();
    await webProfile.next();
    await emoji.next();
    const before = await translations(server);
    expect(before).toEqual({ add: 2, remove: 0, profile: 1, endpoint_profile: 0 });

    // Nobody asked for vote: its pod, slice, profile and Servers are nobody's concern.
    cluster.apply(podOf("vote", "10.244.1.30", { "pod-template-hash": "v2" }));
    cluster.apply(podOf("vote", "10.244.1.30", { "pod-template-hash": "v3" }));
    cluster.apply(
      pod("vote-1", {
        ...CLUSTER_POD,
        namespace: NS,
        ip: "10.244.1.31",
        labels: { app: "vote" },
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      }),
    );
    cluster.apply(
      slice(
        "vote-1",
        "vote",
        [
          podEndpoint("vote-0", "10.244.1.30", { namespace: NS }),
          podEndpoint("vote-1", "10.244.1.31", { namespace: NS }),
        ],
        { namespace: NS, ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      ),
    );
    cluster.apply(
      serviceProfile(
        fqn("vote"),
        {
          routes: [{ name: "GET /", condition: { method: "GET" } }],
        },
        { namespace: NS },
      ),
    );
    cluster.apply(
      policyServer("vote-opaque", { namespace: NS, podSelector: { app: "vote" }, port: 8080 }),
    );
    cluster.delete("Server", NS, "vote-opaque");
    cluster.apply(
      service("vote", {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: 9090, protocol: "TCP" }],
        clusterIP: "10.96.0.30",
      }),
    );
    cluster.apply(node("node-b"));

    // Then a change web's streams do watch: once it has arrived, every change before it has
    // been handled, and it alone has cost a translation.
    cluster.apply(podOf("web", "10.244.1.10", { "pod-template-hash": "v2" }));
    await web.next();
    expect(await translations(server)).toEqual({ ...before, add: before.add + 1 });
    expect(web.unread).toBe(0);
    expect(emoji.unread).toBe(0);
    expect(webProfile.unread).toBe(0);
    for (const stream of [web, webProfile, emoji]) stream.cancel();
  });

  it("re-translates a relabelled pod once for the streams that hold it, and only those", async () => {
    const cluster = threeServices();
    const server = await startServer({ cluster });
    // Two streams of one filter group and zone share one translation.
    const webs = [get(server.client, `${fqn("web")}:80`), get(server.client, `${fqn("web")}:80`)];
    const emoji = get(server.client, `${fqn("emoji")}:80`);
    const webProfile = getProfile(server.client, `${fqn("web")}:80`);
    for (const stream of [...webs, emoji, webProfile]) await stream.next();
    const before = await translations(server);
    expect(before).toEqual({ add: 2, remove: 0, profile: 1, endpoint_profile: 0 });

    // A label no address reads costs nothing, even on a pod streams hold.
    cluster.apply(podOf("web", "10.244.1.10", { build: "42" }));
    // One the addresses carry (pod_template_hash) is translated once for both web streams.
    cluster.apply(podOf("web", "10.244.1.10", { "pod-template-hash": "v2" }));
    const [first, second] = [await webs[0]?.next(), await webs[1]?.next()];
    expect(second).toEqual(first);
    expect(first).toMatchObject({
      add: { addrs: [{ metricLabels: { pod: "web-0", pod_template_hash: "v2" } }] },
    });
    expect(await translations(server)).toEqual({ ...before, add: before.add + 1 });

    // emoji's next message is its own pod's change, not web's.
    cluster.apply(podOf("emoji", "10.244.1.20", { "pod-template-hash": "v2" }));
    expect(await emoji.next()).toMatchObject({
      add: { addrs: [{ metricLabels: { pod: "emoji-0" } }] },
    });
    expect(emoji.unread).toBe(0);
    expect(await translations(server)).toEqual({ ...before, add: before.add + 2 });
    for (const stream of webs) expect(stream.unread).toBe(0);
    expect(webProfile.unread).toBe(0);
    for (const stream of [...webs, emoji, webProfile]) stream.cancel();
  });
});
