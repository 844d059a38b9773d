// The example of README.md, run as a test so it cannot rot. Keep the two in step.

import { noopMetrics, type Secret } from "@destination/core";
import { MemoryCluster } from "@destination/k8s-discovery";
import { expect, it } from "vitest";
import { ClusterStore, FederatedServices } from "./index.js";

it("runs the README example", async () => {
  const printed: string[] = [];
  const print = (line: string) => printed.push(line);

  // --- README example ---
  const local = new MemoryCluster();
  const store = new ClusterStore({
    // An in-memory remote cluster per link here; the default reaches an API server instead.
    factory: (name) => new MemoryCluster({ name }),
    enableEndpointSlices: true,
    enableIPv6: true,
    syncTimeoutMs: 10_000,
    metrics: noopMetrics,
  });
  const federated = new FederatedServices(local, store);
  await local.start();
  local.watchSecrets("linkerd", store.events);

  const link = (cluster: string, name = `cluster-credentials-${cluster}`): Secret => ({
    apiVersion: "v1",
    kind: "Secret",
    type: "mirror.linkerd.io/remote-kubeconfig",
    metadata: {
      name,
      namespace: "linkerd",
      labels: { "multicluster.linkerd.io/cluster-name": cluster },
      annotations: {
        "multicluster.linkerd.io/cluster-domain": "cluster.local",
        "multicluster.linkerd.io/trust-domain": `${cluster}.example`,
      },
    },
    data: { kubeconfig: Buffer.from("apiVersion: v1").toString("base64") },
  });

  store.subscribe({
    linked: (cluster, previous) => print(`${previous ? "relinked" : "linked"} ${cluster.name}`),
    unlinked: (cluster) => print(`unlinked ${cluster.name}`),
  });
  local.apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "web-fed",
      namespace: "emojivoto",
      annotations: { "multicluster.linkerd.io/remote-discovery": "web@east,web@west" },
    },
    spec: { ports: [{ port: 80 }] },
  });
  federated.subscribe("emojivoto", "web-fed", {
    changed: (members) => {
      const linked = members.linked.map((m) => `${m.service}@${m.cluster.name}`);
      const unlinked = members.unlinked.map((m) => `${m.service}@${m.cluster}`);
      print(`web-fed: linked [${linked.join(" ")}] unlinked [${unlinked.join(" ")}]`);
    },
    ended: () => print("web-fed: ended"),
  });

  local.apply(link("east"));
  local.apply(link("west"));
  local.apply(link("east", "east-rotated"));
  local.delete("Secret", "linkerd", "cluster-credentials-east");
  local.delete("Secret", "linkerd", "cluster-credentials-west");
  local.delete("Service", "emojivoto", "web-fed");

  federated.stop();
  await store.stop();
  // --- end ---

  expect(printed).toEqual([
    // The federation heard first: it followed the store before this listener did.
    "web-fed: linked [web@east] unlinked [web@west]",
    "linked east",
    "web-fed: linked [web@east web@west] unlinked []",
    "linked west",
    "web-fed: linked [web@east web@west] unlinked []",
    "relinked east",
    "web-fed: linked [web@east] unlinked [web@west]",
    "unlinked west",
    "web-fed: ended",
  ]);
});
