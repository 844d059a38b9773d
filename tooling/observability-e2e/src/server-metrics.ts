// One sample of the server's own /metrics, read as Prometheus would (text format).

/** The value of the first sample of `name` whose labels include `labels`, if any. */
export async function serverMetric(
  adminPort: number,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? "";
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) return Number(m[3]);
  }
  return undefined;
}

/** The metric families the server exports now (its `# TYPE` lines). */
export async function serverMetricFamilies(adminPort: number): Promise<Set<string>> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
}
