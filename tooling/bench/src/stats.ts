/** Summary statistics over samples (milliseconds, ratios, …). */

/**
 * The `p`-th percentile (0–100) by linear interpolation between closest ranks (the R-7 /
 * NumPy default): p0 is the minimum, p100 the maximum, p50 of an even count the mean of the
 * middle two. NaN for no samples. The input is not modified.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile out of range: ${p}`);
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const lo = sorted[lower] as number;
  const hi = sorted[upper] as number;
  return lo + (hi - lo) * (rank - lower);
}

export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const count = samples.length;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const s of samples) {
    if (s < min) min = s;
    if (s > max) max = s;
    sum += s;
  }
  return {
    count,
    min: count === 0 ? Number.NaN : min,
    median: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: count === 0 ? Number.NaN : max,
    mean: count === 0 ? Number.NaN : sum / count,
  };
}

/** Rounds for reports: 3 significant decimals below 10, 1 decimal below 1000, else integers. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  const digits = abs < 10 ? 3 : abs < 1000 ? 1 : 0;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Sums every series of a metric in Prometheus text exposition (all label sets), or 0 when the
 * metric is absent. `name` must match exactly (`foo` does not match `foo_total`).
 */
export function sumMetric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([^{ ]+)(?:\{.*\})? (\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const value = Number(match[2]);
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}

/** Monotonic clock in milliseconds, comparable between processes of one machine. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Least-squares slope of y over x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}

/** The median of `values` (see `summarize`). */
export function median(values: readonly number[]): number {
  return summarize(values).median;
}
