#!/usr/bin/env node
// `pnpm soak [--cycles=N] [--subscriptions=N]`: subscribes and unsubscribes every watcher many
// times over, on the built packages, and checks that nothing is left behind. Each cycle
// subscribes SUBSCRIPTIONS listeners spread over SERVICES Services (endpoints, opaque ports, and
// profiles from as many client namespaces, new ones each cycle, as a client varying its context
// token would), and as many workload ip:port pairs, then unsubscribes them all. After each cycle
// every publisher gauge must be back at 0, and the heap after a forced GC must stay within 5 % of
// the first cycle's. Needs --expose-gc (the root script passes it).
//
// The default run is 10 cycles of 10,000 subscriptions. `--cycles` and `--subscriptions` make it
// shorter (CI's documented-commands check runs `pnpm soak --cycles=3 --subscriptions=2000`);
// fewer than 1,000 subscriptions would leave some of the 1,000 Services unsubscribed.
const SERVICES = 1_000;
const TOLERANCE = 0.05;
const NS = "soak";
const USAGE = `usage: pnpm soak [--cycles=N] [--subscriptions=N]

  --cycles=N         subscribe/unsubscribe cycles (default 10)
  --subscriptions=N  subscriptions per watcher and cycle, at least ${SERVICES} (default 10000)
`;

/** `--name=N` or `--name N`; the run's size, defaulting to the full soak. */
function parseSize(argv) {
  const size = { cycles: 10, subscriptions: 10_000 };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i];
    if (raw === "--") continue;
    if (raw === "--help" || raw === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    const eq = raw.indexOf("=");
    const flag = eq >= 0 ? raw.slice(0, eq) : raw;
    const text = eq >= 0 ? raw.slice(eq + 1) : argv[++i];
    const key = { "--cycles": "cycles", "--subscriptions": "subscriptions" }[flag];
    const n = Number(text);
    if (key === undefined || !Number.isInteger(n) || n < 1) {
      process.stderr.write(
        `soak: bad argument: ${raw}${eq < 0 && key ? ` ${text ?? ""}` : ""}\n${USAGE}`,
      );
      process.exit(2);
    }
    size[key] = n;
  }
  if (size.subscriptions < SERVICES) {
    process.stderr.write(`soak: --subscriptions must be at least ${SERVICES}\n${USAGE}`);
    process.exit(2);
  }
  return size;
}

const { cycles: CYCLES, subscriptions: SUBSCRIPTIONS } = parseSize(process.argv.slice(2));

if (typeof globalThis.gc !== "function") {
  process.stderr.write("soak: run with node --expose-gc (pnpm soak does)\n");
  process.exit(2);
}

// Imported after the arguments are read, so `--help` and bad arguments need no build.
const { EndpointsWatcher } = await import("../../packages/endpoints-watcher/dist/index.js");
// The in-memory registry is test support (TypeScript source; the Node line we ship strips types).
const { InMemoryMetrics } = await import("../test-support/src/metrics.ts");
const { MemoryCluster } = await import("../../packages/k8s-discovery/dist/index.js");
const { WorkloadWatcher } = await import("../../packages/pod-watcher/dist/index.js");
const { OpaquePortsWatcher, ProfileWatcher } = await import(
  "../../packages/profile-watchers/dist/index.js"
);

const ipOf = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const fqn = (s) => `svc-${s}.${NS}.svc.cluster.local`;

const cluster = new MemoryCluster();
const metrics = new InMemoryMetrics();
const endpoints = new EndpointsWatcher(cluster, {
  enableEndpointSlices: true,
  enableIPv6: false,
  metrics,
});
const profiles = new ProfileWatcher(cluster, { metrics });
const opaquePorts = new OpaquePortsWatcher(cluster, {
  defaultOpaquePorts: new Set([3306]),
  metrics,
});
const workloads = new WorkloadWatcher(cluster, {
  defaultOpaquePorts: new Set([3306]),
  enableEndpointSlices: true,
  metrics,
});
await cluster.start();

// One pod per Service, listed by the Service's slice, so endpoints subscriptions carry addresses.
for (let s = 0; s < SERVICES; s++) {
  const name = `svc-${s}`;
  const ip = ipOf(s + 1);
  cluster.apply({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS },
    spec: { type: "ClusterIP", ports: [{ name: "http", port: 80, targetPort: 8080 }] },
  });
  cluster.apply({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${name}-0`, namespace: NS, labels: { app: name } },
    spec: { containers: [{ name: "app", ports: [{ name: "http", containerPort: 8080 }] }] },
    status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
  });
  cluster.apply({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: `${name}-a`,
      namespace: NS,
      labels: { "kubernetes.io/service-name": name },
    },
    addressType: "IPv4",
    ports: [{ name: "http", port: 8080 }],
    endpoints: [
      {
        addresses: [ip],
        conditions: { ready: true },
        targetRef: { kind: "Pod", namespace: NS, name: `${name}-0` },
      },
    ],
  });
}

const GAUGES = [
  ["endpoints_publishers", { cluster: cluster.name }],
  ["profile_publishers", {}],
  ["opaque_ports_publishers", {}],
  ["workload_publishers", {}],
];
const gauges = () => GAUGES.map(([name, labels]) => metrics.value(name, labels) ?? 0);
const key = { hostname: "", nodeName: "", enableEndpointFiltering: true };
let delivered = 0;
const count = () => {
  delivered++;
};

async function cycle(c) {
  const held = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const s = i % SERVICES;
    const service = { namespace: NS, name: `svc-${s}` };
    const profileId = { namespace: `ns-${c}-${i}`, name: fqn(s) };
    const e = { add: count, remove: count };
    const p = { update: count };
    const o = { updateService: count };
    const w = { update: count };
    endpoints.subscribe(service, 80, key, e);
    profiles.subscribe(profileId, p);
    opaquePorts.subscribe(service, o);
    const ip = await workloads.subscribe({ ip: ipOf(SERVICES + 1 + i), port: 8080 }, w);
    held.push({ service, profileId, e, p, o, w, ip });
  }
  const open = gauges();
  for (const { service, profileId, e, p, o, w, ip } of held) {
    endpoints.unsubscribe(service, 80, key, e);
    profiles.unsubscribe(profileId, p);
    opaquePorts.unsubscribe(service, o);
    workloads.unsubscribe(ip, 8080, w);
  }
  held.length = 0;
  return open;
}

function heapAfterGc() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(2);
const heaps = [];
let failed = false;
for (let c = 1; c <= CYCLES; c++) {
  const started = performance.now();
  const open = await cycle(c);
  const closed = gauges();
  const heap = heapAfterGc();
  heaps.push(heap);
  const drift = heap / (heaps[0] ?? heap) - 1;
  const ms = Math.round(performance.now() - started);
  process.stdout.write(
    `cycle ${String(c).padStart(2)}: ${ms} ms, heap ${mb(heap)} MiB (${(drift * 100).toFixed(1)} % vs cycle 1), ` +
      `publishers open [${open.join(", ")}] after [${closed.join(", ")}]\n`,
  );
  if (closed.some((v) => v !== 0)) {
    process.stderr.write(`soak: publishers left after cycle ${c}: ${closed.join(", ")}\n`);
    failed = true;
  }
  if (Math.abs(drift) > TOLERANCE) {
    process.stderr.write(`soak: heap of cycle ${c} is ${(drift * 100).toFixed(1)} % off cycle 1\n`);
    failed = true;
  }
}
process.stdout.write(
  `${CYCLES} cycles of ${SUBSCRIPTIONS} subscriptions; ${delivered} listener calls; ` +
    `gauges: ${GAUGES.map(([n]) => n).join(", ")}\n`,
);
endpoints.stop();
profiles.stop();
opaquePorts.stop();
workloads.stop();
await cluster.stop?.();
process.exit(failed ? 1 : 0);
