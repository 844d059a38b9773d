// Small text operations on PromQL: enough to turn an alert or a panel query into one Prometheus
// can answer outside Grafana and without the threshold, and to see which metrics it reads.

const COMPARISON_AT_END = /\s*(==|!=|>=|<=|>|<)\s*-?[0-9][0-9.e+]*\s*$/;

/**
 * The expression without its final comparison with a number (`… > 0.5` → `…`), so that it
 * returns series whatever their value. Undefined when it does not end in one.
 */
export function withoutThreshold(expr: string): string | undefined {
  const trimmed = expr.trim();
  const stripped = trimmed.replace(COMPARISON_AT_END, "");
  return stripped === trimmed ? undefined : stripped;
}

/** Grafana's variables replaced as the dashboard's "All" choices would. */
export function expandDashboardVariables(
  expr: string,
  values: { job: string; pod: string; rateInterval: string },
): string {
  return expr
    .replaceAll("$__rate_interval", values.rateInterval)
    .replaceAll("$job", values.job)
    .replaceAll("$pod", values.pod);
}

const FUNCTIONS_AND_KEYWORDS = new Set([
  "sum",
  "max",
  "min",
  "avg",
  "count",
  "topk",
  "bottomk",
  "rate",
  "increase",
  "irate",
  "histogram_quantile",
  "absent",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "or",
  "and",
  "unless",
  "vector",
  "label_replace",
]);

/**
 * The metric names an expression reads: `name{` and `name[` selectors, and the alternatives of a
 * `__name__=~"a|b"` matcher. A name matcher with other regex syntax is returned as written.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  const withoutStrings = expr.replace(/"[^"]*"/g, '""');
  for (const m of withoutStrings.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)) {
    const name = m[1] as string;
    if (!FUNCTIONS_AND_KEYWORDS.has(name)) names.add(name);
  }
  for (const m of expr.matchAll(/__name__=~"([^"]*)"/g)) {
    for (const alternative of (m[1] as string).split("|")) names.add(alternative);
  }
  return [...names].sort();
}
