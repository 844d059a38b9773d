/**
 * Labelled series out of Prometheus text exposition: the kube-apiserver's `/metrics` names the
 * verb and resource of each request in labels, which `sumMetric` (stats.ts) sums away.
 */

export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([^{ ]+)(?:\{(.*)\})? (\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Every series of the metric `name` (exact name: `foo` does not match `foo_total`). */
export function seriesOf(text: string, name: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = LINE.exec(line);
    if (match === null || match[1] !== name) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(LABEL)) {
      labels[key as string] = (raw as string).replace(/\\(.)/g, (_, c: string) =>
        c === "n" ? "\n" : c,
      );
    }
    out.push({ labels, value });
  }
  return out;
}

/**
 * The metric summed by the value of label `by`, over the series whose labels match `where`
 * (every key equal). Series without the label are left out.
 */
export function sumBy(
  text: string,
  name: string,
  by: string,
  where: Readonly<Record<string, string>> = {},
): Map<string, number> {
  const out = new Map<string, number>();
  for (const { labels, value } of seriesOf(text, name)) {
    if (!Object.entries(where).every(([k, v]) => labels[k] === v)) continue;
    const key = labels[by];
    if (key === undefined) continue;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  return out;
}

/** `after − before` per key, keys with no change left out (counters only grow). */
export function deltaOf(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    if (d !== 0) out.set(key, d);
  }
  return out;
}
