import { MemoryCluster } from "@destination/k8s-discovery";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";
import { get } from "@destination/test-support/server";
import { describe, expect, it } from "vitest";
import { serverPerTest } from "./support/server-per-test.js";
import type { TestServer } from "./support/test-server.js";

const NS = "emojivoto";

/** web-svc and voting-svc, each with one ready endpoint on its own pod. */
function twoServices(): MemoryCluster {
  const cluster = new MemoryCluster();
  for (const [name, ip] of [
    ["web", "10.244.1.10"],
    ["voting", "10.244.1.11"],
  ] as const) {
    cluster.apply(
      service(`${name}-svc`, {
        namespace: NS,
        ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
      }),
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
      slice(`${name}-svc-1`, `${name}-svc`, [podEndpoint(`${name}-0`, ip, { namespace: NS })], {
        namespace: NS,
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      }),
    );
  }
  return cluster;
}

function warmUpLines(server: TestServer): Record<string, unknown>[] {
  return server.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => String(entry.msg).includes("warm"));
}

const startServer = serverPerTest();

describe("warm-up before ready", () => {
  it("leaves no publisher or series behind, logs one line, and the first Get gets the whole set", async () => {
    const cluster = twoServices();
    const server = await startServer({ cluster });

    expect(warmUpLines(server)).toEqual([
      expect.objectContaining({ level: "info", msg: "get path warmed up", services: 2 }),
    ]);
    const metrics = (await server.admin("/metrics")).body;
    expect(await server.metric("endpoints_publishers")).toBe(0);
    expect(metrics).not.toMatch(/^endpoints_(subscribers|updates|pods|exists)\{/m);

    const stream = get(server.client, `web-svc.${NS}.svc.cluster.local:80`);
    const first = (await stream.next()) as { add: { addrs: { metricLabels: object }[] } };
    expect(first.add.addrs).toHaveLength(1);
    expect(first.add.addrs[0]?.metricLabels).toMatchObject({ pod: "web-0" });
    expect(await server.metric("endpoints_publishers")).toBe(1);
  });

  it("is skipped with warmUpServices 0", async () => {
    const server = await startServer({ cluster: twoServices(), warmUpServices: 0 });
    expect(warmUpLines(server)).toEqual([
      expect.objectContaining({ msg: "get path warmed up", services: 0 }),
    ]);
  });
});
