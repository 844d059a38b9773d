// What the live test puts the server through: a folder of manifests it serves, Get and GetProfile
// streams from a real gRPC client, churn, and stalled streams driven until their queues overflow.
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CLUSTER_POD,
  pod,
  podEndpoint,
  service,
  serviceProfile,
  slice,
} from "@destination/test-support/builders";
import { connect, get, getProfile, type StreamRecorder } from "@destination/test-support/server";
import { serverMetric } from "./server-metrics.js";

export const NS = "demo";
export const WEB = `web.${NS}.svc.cluster.local`;
export const BUSY = `busy.${NS}.svc.cluster.local`;

/** A temporary manifests folder; files are replaced whole (rename), never seen half-written. */
export class ManifestFolder {
  private constructor(readonly dir: string) {}
  static async create(): Promise<ManifestFolder> {
    return new ManifestFolder(await mkdtemp(join(tmpdir(), "destination-observability-")));
  }
  /** JSON documents separated by `---`: YAML, as the folder backend reads `.yaml` files. */
  async write(name: string, ...objects: object[]): Promise<void> {
    const tmp = join(this.dir, `.${name}.tmp`);
    await writeFile(tmp, objects.map((o) => JSON.stringify(o)).join("\n---\n"));
    await rename(tmp, join(this.dir, name));
  }
  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

const webPods = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    pod(`web-${i}`, {
      ...CLUSTER_POD,
      namespace: NS,
      ip: `10.1.0.${i + 1}`,
      labels: {},
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    }),
  );
const webEndpoints = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    podEndpoint(`web-${i}`, `10.1.0.${i + 1}`, { namespace: NS }),
  );

// busy starts with one pod: a Get on a Service without endpoints sends nothing to wait for.
const BUSY_SEED = pod("busy-seed", {
  ...CLUSTER_POD,
  namespace: NS,
  ip: "10.2.255.1",
  labels: {},
  ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
});

/** The initial cluster: web (2 pods, a profile) and busy (no endpoints yet, a profile). */
export async function writeInitialCluster(folder: ManifestFolder): Promise<void> {
  await folder.write(
    "web.yaml",
    service("web", { namespace: NS, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
    ...webPods(2),
    slice("web-1", "web", webEndpoints(2), {
      namespace: NS,
      ports: [{ port: 8080, protocol: "TCP" }],
    }),
  );
  await folder.write("web-profile.yaml", serviceProfile(WEB, { routes: [] }, { namespace: NS }));
  await folder.write(
    "busy.yaml",
    service("busy", { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] }),
    BUSY_SEED,
    slice("busy-1", "busy", [podEndpoint("busy-seed", "10.2.255.1", { namespace: NS })], {
      namespace: NS,
      ports: [{ port: 8080, protocol: "TCP" }],
    }),
  );
  await folder.write("busy-profile.yaml", serviceProfile(BUSY, { routes: [] }, { namespace: NS }));
}

/** Scales web from 2 to 4 pods and back, each change seen on the open Get stream. */
export async function churnWeb(
  folder: ManifestFolder,
  stream: StreamRecorder<never> | { next(): Promise<unknown> },
): Promise<void> {
  for (const n of [4, 2, 3]) {
    await folder.write(
      "web.yaml",
      service("web", { namespace: NS, ports: [{ port: 80, targetPort: 8080, protocol: "TCP" }] }),
      ...webPods(n),
      slice("web-1", "web", webEndpoints(n), {
        namespace: NS,
        ports: [{ port: 8080, protocol: "TCP" }],
      }),
    );
    await stream.next();
  }
}

/**
 * Grows busy's endpoints in batches while one Get stream on it reads and another is stalled,
 * until the stalled one's queue overflows; returns the rounds it took.
 */
export async function overflowGet(folder: ManifestFolder, grpcPort: number, adminPort: number) {
  const fastClient = connect(grpcPort);
  const slowClient = connect(grpcPort);
  const fast = get(fastClient, `${BUSY}:8080`);
  const slow = get(slowClient, `${BUSY}:8080`);
  await fast.next();
  await slow.next();
  slow.stream.pause();
  // Each round is a file of its own (its pods and one more EndpointSlice of busy), so the folder
  // backend parses only the new batch.
  let rounds = 0;
  try {
    while ((await serverMetric(adminPort, "endpoint_updates_queue_overflow")) === undefined) {
      rounds += 1;
      if (rounds > 60) throw new Error("the stalled Get stream never overflowed");
      const batch = Array.from({ length: 200 }, (_, i) => {
        const n = rounds * 200 + i;
        return {
          ip: `10.3.${Math.floor(n / 256)}.${n % 256}`,
          pod: `busy-${n}-with-a-long-name-to-fill-flow-control-windows-quickly`,
        };
      });
      await folder.write(
        `busy-${rounds}.yaml`,
        ...batch.map((e) =>
          pod(e.pod, {
            ...CLUSTER_POD,
            namespace: NS,
            ip: e.ip,
            labels: {},
            ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
          }),
        ),
        slice(
          `busy-batch-${rounds}`,
          "busy",
          batch.map((e) => podEndpoint(e.pod, e.ip, { namespace: NS })),
          { namespace: NS, ports: [{ port: 8080, protocol: "TCP" }] },
        ),
      );
      await fast.next();
    }
  } finally {
    fast.cancel();
    slow.cancel();
    fastClient.close();
    slowClient.close();
  }
  return rounds;
}

/** Rewrites busy's profile with many routes while a GetProfile stream on it is stalled. */
export async function overflowGetProfile(
  folder: ManifestFolder,
  grpcPort: number,
  adminPort: number,
) {
  const fastClient = connect(grpcPort);
  const slowClient = connect(grpcPort);
  const fast = getProfile(fastClient, `${BUSY}:8080`);
  const slow = getProfile(slowClient, `${BUSY}:8080`);
  await fast.next();
  await slow.next();
  slow.stream.pause();
  const routes = Array.from({ length: 300 }, (_, i) => ({
    name: `route-${i}-with-a-name-long-enough-to-weigh-something`,
    condition: { pathRegex: `/api/v1/resources/${i}/.*` },
  }));
  let version = 0;
  try {
    while ((await serverMetric(adminPort, "profile_updates_queue_overflow")) === undefined) {
      version += 1;
      if (version > 100) throw new Error("the stalled GetProfile stream never overflowed");
      await folder.write(
        "busy-profile.yaml",
        serviceProfile(
          BUSY,
          {
            routes: routes.map((r) => ({ ...r, isRetryable: version % 2 === 0 })),
          },
          { namespace: NS },
        ),
      );
      await fast.next();
    }
  } finally {
    fast.cancel();
    slow.cancel();
    fastClient.close();
    slowClient.close();
  }
  return version;
}
