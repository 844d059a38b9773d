import { type Cluster, MemoryCluster } from "@destination/k8s-discovery";
import { DestinationClient } from "@destination/proto/client";
import * as grpc from "@grpc/grpc-js";
import {
  createServerLogger,
  type DestinationServerOptions,
  type RunningDestinationServer,
  startDestinationServer,
} from "../../src/index.js";

export interface TestServer {
  readonly server: RunningDestinationServer;
  readonly client: DestinationClient;
  readonly logs: string[];
  readonly grpcPort: number;
  /** GETs a path of the admin server. */
  admin(path: string): Promise<{ status: number; body: string }>;
  /** The value of one series in `/metrics`, or undefined. */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
  /**
   * Polls `/metrics` until the series holds `value` (undefined: until it is gone). Tests use it
   * to know the server has seen a request before they change the cluster.
   */
  waitForMetric(
    name: string,
    labels: Record<string, string>,
    value: number | undefined,
  ): Promise<void>;
  close(): Promise<void>;
}

export async function adminGet(port: number, path: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

/** Parses one series out of Prometheus text. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([^{ ]+)(?:\{(.*)\})? (.+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const present = new Map<string, string>();
    for (const pair of (match[2] ?? "").matchAll(/([^=,]+)="((?:[^"\\]|\\.)*)"/g)) {
      present.set(pair[1] ?? "", pair[2] ?? "");
    }
    if (Object.entries(labels).every(([k, v]) => present.get(k) === v)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

/** Starts a server on loopback with free ports and connects a client to it. */
export async function startTestServer(
  options: DestinationServerOptions & { cluster?: Cluster } = {},
): Promise<TestServer> {
  const logs: string[] = [];
  const server = await startDestinationServer({
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    logger: createServerLogger({
      level: "debug",
      format: "json",
      sink: { write: (line: string) => logs.push(line) },
    }),
    shutdownTimeoutMs: 2000,
    cluster: options.cluster ?? (options.manifests === undefined ? new MemoryCluster() : undefined),
    ...options,
  });
  const client = new DestinationClient(
    `127.0.0.1:${server.grpcPort}`,
    grpc.credentials.createInsecure(),
  );
  const admin = (path: string) => adminGet(server.adminPort, path);
  return {
    server,
    client,
    logs,
    grpcPort: server.grpcPort,
    admin,
    async metric(name, labels) {
      return metricValue((await admin("/metrics")).body, name, labels);
    },
    async waitForMetric(name, labels, value) {
      while (metricValue((await admin("/metrics")).body, name, labels) !== value) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async close() {
      client.close();
      await server.close();
    },
  };
}
