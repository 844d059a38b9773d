// Prometheus' relabelling (keep, drop, replace) applied to one target's labels, as a scrape job
// applies its relabel_configs to what service discovery found.

export interface RelabelConfig {
  readonly source_labels?: readonly string[];
  readonly separator?: string;
  readonly regex?: string;
  readonly target_label?: string;
  readonly replacement?: string;
  readonly action?: "keep" | "drop" | "replace";
}

export type Labels = Readonly<Record<string, string>>;

/** The target's labels after the rules, or undefined when a rule drops it. */
export function relabel(labels: Labels, configs: readonly RelabelConfig[]): Labels | undefined {
  let current: Record<string, string> = { ...labels };
  for (const config of configs) {
    const value = (config.source_labels ?? [])
      .map((name) => current[name] ?? "")
      .join(config.separator ?? ";");
    // Prometheus anchors every regex at both ends.
    const regex = new RegExp(`^(?:${config.regex ?? "(.*)"})$`);
    const match = regex.exec(value);
    switch (config.action ?? "replace") {
      case "keep":
        if (!match) return undefined;
        break;
      case "drop":
        if (match) return undefined;
        break;
      case "replace": {
        if (!match || config.target_label === undefined) break;
        const replaced = (config.replacement ?? "$1").replace(
          /\$\{?(\d+)\}?/g,
          (_, n: string) => match[Number(n)] ?? "",
        );
        current = { ...current };
        if (replaced === "") delete current[config.target_label];
        else current[config.target_label] = replaced;
        break;
      }
    }
  }
  return current;
}
