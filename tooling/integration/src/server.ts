// destination-server in-process on the cluster backend, with a client, its logs and its metrics.
import type { DestinationClient } from "@destination/proto/client";
import {
  createServerLogger,
  type DestinationServerOptions,
  type RunningDestinationServer,
  startDestinationServer,
} from "@destination/server";
import { connect } from "@destination/test-support/server";

export interface ServerUnderTest {
  readonly server: RunningDestinationServer;
  readonly client: DestinationClient;
  readonly logs: string[];
  /** The admin server's Prometheus text. */
  metricsText(): Promise<string>;
  /** The value of one series, or undefined. */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
  close(): Promise<void>;
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
    if (Object.entries(labels).every(([k, v]) => present.get(k) === v)) return Number(match[3]);
  }
  return undefined;
}

/** Starts the server against a kubeconfig (the cluster backend), on loopback with free ports. */
export async function startServer(
  kubeconfig: string,
  options: DestinationServerOptions = {},
): Promise<ServerUnderTest> {
  const logs: string[] = [];
  const server = await startDestinationServer({
    kubeconfig,
    addr: "127.0.0.1:0",
    metricsAddr: "127.0.0.1:0",
    shutdownTimeoutMs: 2000,
    logger: createServerLogger({
      level: "debug",
      format: "json",
      sink: { write: (line: string) => logs.push(line) },
    }),
    ...options,
  });
  const client = connect(server.grpcPort);
  const metricsText = async () =>
    (await fetch(`http://127.0.0.1:${server.adminPort}/metrics`)).text();
  return {
    server,
    client,
    logs,
    metricsText,
    async metric(name, labels) {
      return metricValue(await metricsText(), name, labels);
    },
    async close() {
      client.close();
      await server.close();
    },
  };
}
