#!/usr/bin/env node
// What a cold Get costs the server's own code, without gRPC: one subscription to each of 1k
// never-subscribed services (watcher, translation, encode), then their unsubscription.
// Runs on the built packages: `pnpm turbo run build --filter=@destination/bench...` first.
// `node scripts/cold-subscribe-cost.mjs [rounds]`
import { noopMetrics, silentLogger } from "@destination/core";
import { EndpointsWatcher } from "@destination/endpoints-watcher";
import { MemoryCluster } from "@destination/k8s-discovery";
import { encodeUpdate } from "@destination/proto";
import { EndpointTranslation, EndpointTranslator } from "@destination/translators";
import {
  DEFAULT_TRANSLATOR_CONFIG,
  dataset,
  LIST_ORDER,
  listOf,
  namespaceOf,
  serviceName,
} from "../dist/fixtures.js";

const SERVICES = 1000;
const rounds = Number(process.argv[2] ?? 30);
const data = dataset(SERVICES, 10);
const cluster = new MemoryCluster();
for (const kind of LIST_ORDER) for (const obj of listOf(data.byKind, kind)) cluster.apply(obj);
const watcher = new EndpointsWatcher(cluster, {
  enableEndpointSlices: true,
  enableIPv6: false,
  logger: silentLogger,
  metrics: noopMetrics,
});
await cluster.start();
const translation = new EndpointTranslation(DEFAULT_TRANSLATOR_CONFIG);
const ZONES = ["zone-a", "zone-b", "zone-c"];
// The server encodes once per Update object.
const encoded = new WeakMap();
let bytes = 0;
const sink = {
  send(update) {
    let b = encoded.get(update);
    if (b === undefined) {
      b = encodeUpdate(update);
      encoded.set(update, b);
    }
    bytes += b.length;
    return true;
  },
};

// CPU time, not wall time: the machine may be shared.
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function round() {
  const subs = [];
  const t0 = cpuMs();
  for (let i = 0; i < SERVICES; i++) {
    const service = { namespace: namespaceOf(i), name: serviceName(i) };
    const key = { hostname: "", nodeName: `node-${i % 3}`, enableEndpointFiltering: true };
    const translator = new EndpointTranslator(translation.forZone(ZONES[i % 3]), sink);
    watcher.subscribe(service, 8080, key, translator);
    subs.push([service, key, translator]);
  }
  const t1 = cpuMs();
  for (const [service, key, translator] of subs)
    watcher.unsubscribe(service, 8080, key, translator);
  const t2 = cpuMs();
  return [t1 - t0, t2 - t1];
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (let w = 0; w < 10; w++) round();
const subs = [];
const unsubs = [];
for (let r = 0; r < rounds; r++) {
  const [s, u] = round();
  subs.push(s);
  unsubs.push(u);
}
console.log(
  `${SERVICES} cold subscriptions: subscribe CPU median ${median(subs).toFixed(1)} ms (min ${Math.min(...subs).toFixed(1)}), unsubscribe CPU median ${median(unsubs).toFixed(1)} ms, ${bytes / (rounds + 10)} bytes per round`,
);
