// The example of README.md, run as a test so it cannot rot. Keep the two in step.

import type { Address, Pod, Server } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { expect, it } from "vitest";
import { WorkloadWatcher } from "./index.js";

it("runs the README example", async () => {
  const printed: string[] = [];
  const print = (line: string) => printed.push(line);

  // --- README example ---
  const cluster = new MemoryCluster();
  const watcher = new WorkloadWatcher(cluster, {
    defaultOpaquePorts: new Set([3306]),
    enableEndpointSlices: true,
  });
  await cluster.start();

  const web: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-1", namespace: "default", labels: { app: "web" } },
    spec: { containers: [{ name: "app", ports: [{ containerPort: 8080 }] }] },
    status: { phase: "Running", podIP: "10.0.0.1" },
  };
  cluster.apply(web);

  const listener = {
    update(a: Address) {
      const pod = a.pod?.metadata.name ?? "-";
      print(
        `${a.ip}:${a.port} pod=${pod} owner=${a.ownerKind}/${a.ownerName} opaque=${a.opaqueProtocol}`,
      );
    },
  };
  const ip = await watcher.subscribe({ ip: "10.0.0.1", port: 8080 }, listener);

  const opaqueHttp: Server = {
    apiVersion: "policy.linkerd.io/v1beta3",
    kind: "Server",
    metadata: { name: "web-http", namespace: "default" },
    spec: { podSelector: { matchLabels: { app: "web" } }, port: 8080, proxyProtocol: "opaque" },
  };
  cluster.apply(opaqueHttp);
  cluster.delete("Pod", "default", "web-1");
  watcher.unsubscribe(ip, 8080, listener);
  watcher.stop();
  // --- end ---

  expect(printed).toEqual([
    "10.0.0.1:8080 pod=web-1 owner=pod/web-1 opaque=false",
    "10.0.0.1:8080 pod=web-1 owner=pod/web-1 opaque=true",
    "10.0.0.1:8080 pod=- owner=/ opaque=false",
  ]);
});
