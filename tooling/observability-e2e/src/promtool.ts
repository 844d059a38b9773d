// Debian's promtool (package `prometheus`), run on the kit's files.
import { spawnSync } from "node:child_process";

export const PROMETHEUS_MISSING =
  "promtool and prometheus are missing: install Debian's package (apt-get install -y prometheus)";

export interface ToolRun {
  readonly status: number | null;
  readonly output: string;
}

export function promtool(args: readonly string[], cwd?: string): ToolRun {
  const run = spawnSync("promtool", args, { cwd, encoding: "utf8" });
  if (run.error) throw new Error(`${PROMETHEUS_MISSING} (${run.error.message})`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** `prometheus --version`'s first line. */
export function prometheusVersion(): string {
  const run = spawnSync("prometheus", ["--version"], { encoding: "utf8" });
  if (run.error) throw new Error(`${PROMETHEUS_MISSING} (${run.error.message})`);
  return `${run.stdout}${run.stderr}`.split("\n")[0] ?? "";
}
