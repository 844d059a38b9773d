// Reading series out of the Prometheus text a proxy's admin server serves at /metrics.

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function parseSeries(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([^{ ]+)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([^=,\s]+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] ?? ""] = pair[2] ?? "";
    }
    out.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return out;
}

/** Series named `name` whose labels include all of `labels`. */
export function select(
  series: readonly Series[],
  name: string,
  labels: Record<string, string> = {},
): Series[] {
  return series.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The sum of the selected series (0 when none match). */
export function sum(series: readonly Series[], name: string, labels: Record<string, string> = {}) {
  return select(series, name, labels).reduce((n, s) => n + s.value, 0);
}
