// Watches shop/web:80 in an in-memory cluster and prints what a Get stream would be told.

import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { MemoryCluster } from "@destination/k8s-discovery";

const cluster = new MemoryCluster();
const watcher = new EndpointsWatcher(cluster, { enableEndpointSlices: true, enableIPv6: true });
await cluster.start();

const show = (set) =>
  [...set.addresses.values()].map(({ address }) => `${address.ip}:${address.port}`).join(" ");
watcher.subscribe(
  { namespace: "shop", name: "web" },
  80,
  { hostname: "", nodeName: "", enableEndpointFiltering: true },
  {
    add: (set) => console.log(`add ${show(set)}`),
    remove: (set) => console.log(`remove ${show(set)}`),
  },
);

const meta = (name) => ({ name, namespace: "shop" });
const pod = (name, ip) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta(name),
  status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
});
const slice = (...pods) => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { ...meta("web-abcde"), labels: { "kubernetes.io/service-name": "web" } },
  addressType: "IPv4",
  ports: [{ name: "http", port: 8080 }],
  endpoints: pods.map(([name, ip]) => ({
    addresses: [ip],
    conditions: { ready: true },
    targetRef: { kind: "Pod", namespace: "shop", name },
  })),
});

cluster.apply({
  apiVersion: "v1",
  kind: "Service",
  metadata: meta("web"),
  spec: { ports: [{ name: "http", port: 80, targetPort: 8080 }] },
});
cluster.apply(pod("web-1", "10.0.0.1"));
cluster.apply(pod("web-2", "10.0.0.2"));
cluster.apply(slice(["web-1", "10.0.0.1"])); // add 10.0.0.1:8080
cluster.apply(slice(["web-2", "10.0.0.2"])); // add 10.0.0.2:8080, then remove 10.0.0.1:8080
cluster.delete("Service", "shop", "web"); // remove 10.0.0.2:8080
watcher.stop();
