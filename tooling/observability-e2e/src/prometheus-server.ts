// A real Prometheus (Debian's package) for a test: loopback, a free port, a temporary data dir,
// a 1 s scrape and evaluation interval, scraping the targets it is given and loading rule files.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { PROMETHEUS_MISSING } from "./promtool.js";

export interface ScrapeTarget {
  readonly job: string;
  readonly address: string;
  /** Labels every series of the target gets (what service discovery and relabelling would). */
  readonly labels: Readonly<Record<string, string>>;
}

export interface QueryResult {
  readonly status: "success" | "error";
  readonly error?: string;
  readonly data?: {
    readonly resultType: string;
    readonly result: readonly { metric: Record<string, string>; value: [number, string] }[];
  };
}

export interface RuleHealth {
  readonly name: string;
  readonly health: string;
  readonly lastError?: string;
  readonly state?: string;
}

export interface PrometheusServer {
  readonly url: string;
  query(expr: string): Promise<QueryResult>;
  rules(): Promise<RuleHealth[]>;
  /** Prometheus' own log, for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export async function startPrometheus(options: {
  targets: readonly ScrapeTarget[];
  ruleFiles: readonly string[];
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), "destination-prometheus-"));
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
    rule_files: options.ruleFiles,
    scrape_configs: options.targets.map((t) => ({
      job_name: t.job,
      static_configs: [{ targets: [t.address], labels: t.labels }],
    })),
  };
  await writeFile(join(dir, "prometheus.yml"), stringify(config));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const spawnError = new Promise<never>((_, reject) =>
    child.on("error", (e) => reject(new Error(`${PROMETHEUS_MISSING} (${e.message})`))),
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${log}`);
      try {
        if ((await fetch(`${url}/-/ready`)).ok) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`prometheus was not ready in 60 s: ${log}`);
  })();
  try {
    await Promise.race([ready, spawnError]);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    url,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      return (await response.json()) as QueryResult;
    },
    async rules() {
      const response = await fetch(`${url}/api/v1/rules`);
      const body = (await response.json()) as { data: { groups: { rules: RuleHealth[] }[] } };
      return body.data.groups.flatMap((g) => g.rules);
    },
    logs: () => log,
    stop,
  };
}
