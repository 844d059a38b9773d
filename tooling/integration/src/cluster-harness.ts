// A `BackendHarness` (k8s-discovery's shared backend suite) on a real API server: the cluster
// backend reaches kube-apiserver through a `CutProxy`, the test writes to it directly.
import { createKubeCluster, type KubeCluster, type ResourceKind } from "@destination/k8s-discovery";
import type {
  BackendHarness,
  BackendHarnessFactory,
} from "@destination/test-support/backend-suite";
import type { KubeObject } from "./api.js";
import { CutProxy } from "./cut-proxy.js";
import type { IntegrationEnv } from "./env.js";

/** The kinds the cluster backend caches in slice mode, in the order they are cleared. */
export const SLICE_MODE_KINDS: readonly ResourceKind[] = [
  "EndpointSlice",
  "ServiceProfile",
  "Server",
  "ExternalWorkload",
  "Service",
  "Pod",
  "ReplicaSet",
  "Job",
  "Node",
];

/** Deletes every object of the cached kinds, in every namespace. */
export async function clearCluster({ api }: IntegrationEnv): Promise<void> {
  for (const kind of SLICE_MODE_KINDS) {
    for (const obj of await api.list(kind)) {
      await api.delete(kind, obj.metadata.namespace, obj.metadata.name);
    }
  }
}

export interface ClusterHarnessOptions {
  /** Reconnect backoff of the backend; short, so relists do not wait for seconds. */
  readonly backoff?: { baseMs: number; capMs: number };
  readonly metrics?: Parameters<typeof createKubeCluster>[0]["metrics"];
}

export interface ClusterHarness extends BackendHarness {
  readonly cluster: KubeCluster;
  readonly proxy: CutProxy;
}

/**
 * A harness factory: each harness starts from a cluster holding exactly `initial` (everything
 * else of the cached kinds deleted), and a fresh cluster backend connected through a new proxy.
 * `whileDisconnected` cuts the proxy, runs the change, compacts etcd (so resuming the watches
 * fails with 410 Gone) and reconnects: the backend can only catch up by listing again.
 */
export function clusterHarnessFactory(
  ctx: () => IntegrationEnv,
  options: ClusterHarnessOptions = {},
): BackendHarnessFactory {
  return async (initial) => makeClusterHarness(ctx(), initial, options);
}

export async function makeClusterHarness(
  ctx: IntegrationEnv,
  initial: readonly { kind?: string; metadata: { name?: string } }[],
  options: ClusterHarnessOptions = {},
): Promise<ClusterHarness> {
  const { env, api } = ctx;
  await clearCluster(ctx);
  await api.apply(...(initial as KubeObject[]));
  const proxy = await CutProxy.start(Number(new URL(env.server).port));
  const cluster = await createKubeCluster({
    kubeconfigPath: proxy.writeKubeconfig(env),
    enableEndpointSlices: true,
    resyncMs: 0,
    backoff: options.backoff ?? { baseMs: 20, capMs: 200 },
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  return {
    cluster,
    proxy,
    async apply(...objects) {
      await api.apply(...(objects as KubeObject[]));
    },
    async delete(kind, namespace, name) {
      await api.delete(kind, namespace, name);
    },
    async whileDisconnected(change) {
      proxy.cut();
      try {
        await change();
        await env.compactEtcd();
      } finally {
        proxy.restore();
      }
    },
    async close() {
      await cluster.stop();
      await proxy.close();
    },
  };
}
