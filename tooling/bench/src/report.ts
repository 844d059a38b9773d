/** Results: the shape each scenario reports, the stdout table and the JSON document. */
import { round } from "./stats.js";

export type ParamValue = string | number | boolean;

/** One measured scenario at one size. Times are milliseconds. */
export interface ScenarioResult {
  readonly name: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Samples behind median and p99. */
  readonly samples: number;
  readonly median_ms: number;
  readonly p99_ms: number;
  /** Fan-out only: fanout p99 / limit-baseline p99 at the same size. */
  readonly ratio_to_limit?: number;
  /** Fan-out only: fanout median / limit-baseline median. */
  readonly median_ratio_to_limit?: number;
  /** Scale only: heap used and RSS after a forced GC, in MiB; sync time (median). */
  readonly heap_mb?: number;
  readonly rss_mb?: number;
  readonly sync_ms?: number;
  /** Churn only: endpoints the cluster has that a stream lacked at the end (must be 0). */
  readonly missing_at_end?: number;
  /** Churn only: adds delivered only once their pod arrived (slice written first), and their p99. */
  readonly late_adds?: number;
  readonly late_add_p99_ms?: number;
  /** CPU the server process used (user + system) in the measured phase, ms. */
  readonly cpu_ms?: number;
  /** Cluster only: ours / upstream's Go destination service, medians, same run. */
  readonly ratio_to_upstream?: number;
  /** Anything else worth keeping (CPU, overflows, encode counts, …). */
  readonly extra?: Readonly<Record<string, ParamValue>>;
}

export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  /** 1/5/15-minute load averages when the run started and ended: other work skews results. */
  readonly loadAverageStart: readonly number[];
  readonly loadAverageEnd: readonly number[];
}

export interface BenchDocument {
  readonly version: 1;
  readonly startedAt: string;
  readonly command: string;
  readonly quick: boolean;
  readonly machine: MachineInfo;
  readonly scenarios: readonly ScenarioResult[];
}

function roundedRecord(record: Readonly<Record<string, ParamValue>>): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [k, v] of Object.entries(record)) out[k] = typeof v === "number" ? round(v) : v;
  return out;
}

/** Rounds every number of a result for reporting (JSON and table). */
export function roundResult(result: ScenarioResult): ScenarioResult {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result)) {
    if (typeof v === "number") out[k] = k === "samples" ? v : round(v);
    else if (v !== null && typeof v === "object")
      out[k] = roundedRecord(v as Record<string, ParamValue>);
    else out[k] = v;
  }
  return out as unknown as ScenarioResult;
}

export function benchDocument(
  results: readonly ScenarioResult[],
  meta: Omit<BenchDocument, "version" | "scenarios">,
): BenchDocument {
  return { version: 1, ...meta, scenarios: results.map(roundResult) };
}

function formatParams(params: Readonly<Record<string, ParamValue>>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
}

function cell(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? "" : String(round(value));
}

/** A fixed-width table, one row per result, extras on the row below when present. */
export function formatTable(results: readonly ScenarioResult[]): string {
  const header = [
    "scenario",
    "params",
    "n",
    "median_ms",
    "p99_ms",
    "ratio",
    "sync_ms",
    "cpu_ms",
    "heap_mb",
    "rss_mb",
  ];
  const rows = results.map((r) => [
    r.name,
    formatParams(r.params),
    String(r.samples),
    cell(r.median_ms),
    cell(r.p99_ms),
    r.ratio_to_limit !== undefined
      ? `${cell(r.ratio_to_limit)} (med ${cell(r.median_ratio_to_limit)})`
      : r.ratio_to_upstream !== undefined
        ? `${cell(r.ratio_to_upstream)} (upstream)`
        : "",
    cell(r.sync_ms),
    cell(r.cpu_ms),
    cell(r.heap_mb),
    cell(r.rss_mb),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const line = (cols: readonly string[]) =>
    cols
      .map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [line(header), line(widths.map((w) => "-".repeat(w)))];
  results.forEach((r, i) => {
    out.push(line(rows[i] ?? []));
    const endState = {
      ...(r.missing_at_end === undefined ? {} : { missing_at_end: r.missing_at_end }),
      ...(r.late_adds === undefined ? {} : { late_adds: r.late_adds }),
      ...(r.late_add_p99_ms === undefined ? {} : { late_add_p99_ms: r.late_add_p99_ms }),
    };
    const extra = { ...endState, ...r.extra };
    if (Object.keys(extra).length > 0) out.push(`    ${formatParams(roundedRecord(extra))}`);
  });
  return `${out.join("\n")}\n`;
}
