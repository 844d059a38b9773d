#!/usr/bin/env node
import { noopMetrics, silentLogger } from "@destination/core";
// What one initial snapshot costs the server: translating an address set of n pod endpoints into
// an Update{add} (translators) and encoding it (proto), warm, per join that does not share them.
// Runs on the built packages: `pnpm turbo run build --filter=@destination/bench...` first.
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { MemoryCluster } from "@destination/k8s-discovery";
import { encodeUpdate } from "@destination/proto";
import { EndpointTranslation } from "@destination/translators";
import {
  DEFAULT_TRANSLATOR_CONFIG,
  namespaceOf,
  node,
  pod,
  podIp,
  replicaSet,
  service,
  serviceName,
  slice,
} from "../dist/fixtures.js";

for (const n of [10, 100, 1000]) {
  const cluster = new MemoryCluster();
  for (let i = 0; i < 3; i++) cluster.apply(node(i));
  cluster.apply(service(0));
  cluster.apply(replicaSet(0));
  const refs = [];
  for (let p = 0; p < n; p++) {
    const ref = { pod: `p-${p}`, ip: podIp(p), node: p };
    cluster.apply(pod(0, ref.pod, ref.ip, ref.node));
    refs.push(ref);
  }
  cluster.apply(slice(0, refs));
  await cluster.start();
  const watcher = new EndpointsWatcher(cluster, {
    enableEndpointSlices: true,
    enableIPv6: true,
    logger: silentLogger,
    metrics: noopMetrics,
  });
  let captured;
  watcher.subscribe(
    { namespace: namespaceOf(0), name: serviceName(0) },
    8080,
    { hostname: "", nodeName: "node-0", enableEndpointFiltering: true },
    {
      add: (s) => {
        captured = s;
      },
      remove() {},
    },
  );
  const zoned = new EndpointTranslation(DEFAULT_TRANSLATOR_CONFIG).forZone("zone-a");
  const iters = Math.max(20, Math.round(20000 / n));
  let update;
  for (let w = 0; w < iters; w++)
    update = zoned.addUpdate({ addresses: new Map(captured.addresses), labels: captured.labels });
  let t = performance.now();
  for (let k = 0; k < iters; k++)
    update = zoned.addUpdate({ addresses: new Map(captured.addresses), labels: captured.labels });
  const tr = (performance.now() - t) / iters;
  for (let w = 0; w < iters; w++) encodeUpdate(update);
  t = performance.now();
  let bytes;
  for (let k = 0; k < iters; k++) bytes = encodeUpdate(update);
  const en = (performance.now() - t) / iters;
  console.log(
    `${n} addresses: translate ${(tr * 1000).toFixed(0)} µs (${((tr * 1000) / n).toFixed(1)} µs/addr), encode ${(en * 1000).toFixed(0)} µs (${((en * 1000) / n).toFixed(1)} µs/addr), ${bytes.length} bytes`,
  );
}
