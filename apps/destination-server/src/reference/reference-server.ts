// A reference destination server for audits from outside (`dst audit`): the same server, on the
// same source as the one audited (a folder of manifests or a kubeconfig's cluster), listening on
// loopback, with nothing of its own running in the background. It answers with the rules that
// serve, so what it says is what the audited server must say; it also names every Service port
// of the source, which `dst audit --all` asks about.
import type { ManifestsCluster } from "@destination/k8s-discovery";
import { Registry } from "prom-client";
import { openCluster } from "../cluster/open-cluster.js";
import { startDestinationServer } from "../destination-server.js";
import { createServerLogger, type ServerLogger } from "../logging/server-logger.js";
import { PromMetricsRegistry } from "../metrics/prom-metrics-registry.js";
import type { ReferenceOptions } from "./reference-options.js";

export interface ReferenceSource {
  /** A folder of manifests; otherwise the cluster of `kubeconfig` (default resolution). */
  readonly manifests?: string | undefined;
  readonly kubeconfig?: string | undefined;
  readonly kubeContext?: string | undefined;
  /** Default: errors only, on stderr. */
  readonly logger?: ServerLogger | undefined;
  /** The audited server's answer-shaping options (`referenceOptionsFromArgs`); default: the
   * server's defaults. */
  readonly options?: ReferenceOptions | undefined;
}

/** One Service port of the source. */
export interface ReferenceServicePort {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

export interface ReferenceServer {
  /** `127.0.0.1:PORT`, the gRPC address; caches are synced. */
  readonly addr: string;
  /** Every port of every Service the source holds, sorted by namespace, name and port. */
  servicePorts(): ReferenceServicePort[];
  /**
   * Brings the caches up to the source's present: a folder of manifests is re-read now (its
   * watch would see an edit only after a debounce); a cluster's caches are live watches already.
   */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the reference server and resolves once its caches have synced. */
export async function startReferenceServer(source: ReferenceSource): Promise<ReferenceServer> {
  const logger = source.logger ?? createServerLogger({ level: "error" });
  // The cluster is opened here, not by the server, to read its Services for `servicePorts`.
  const { cluster } = await openCluster(
    {
      manifests: source.manifests,
      kubeconfig: source.kubeconfig,
      kubeContext: source.kubeContext,
      enableEndpointSlices: source.options?.enableEndpointSlices ?? true,
    },
    new PromMetricsRegistry(new Registry()),
    logger,
  );
  let server: Awaited<ReturnType<typeof startDestinationServer>>;
  try {
    server = await startDestinationServer({
      ...source.options,
      cluster,
      addr: "127.0.0.1:0",
      metricsAddr: "127.0.0.1:0",
      // A one-shot answer: no self-audit, no warm-up.
      auditIntervalMs: 0,
      warmUpServices: 0,
      logger,
    });
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return {
    addr: `127.0.0.1:${server.grpcPort}`,
    servicePorts() {
      const ports = cluster.services.list().flatMap((service) =>
        (service.spec?.ports ?? []).map((p) => ({
          namespace: service.metadata.namespace ?? "default",
          name: service.metadata.name ?? "",
          port: p.port,
        })),
      );
      return ports.sort(
        (a, b) =>
          a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.port - b.port,
      );
    },
    async refresh() {
      const manifests = cluster as Partial<ManifestsCluster>;
      if (source.manifests !== undefined && manifests.reload !== undefined) {
        await manifests.reload();
      }
    },
    async close() {
      await server.close();
      await cluster.stop();
    },
  };
}
