// JSON with object keys sorted, so that two answers differing only in map order (metric labels)
// compare equal.
import type { JsonValue } from "@destination/proto";

export function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

/** The top-level fields whose canonical JSON differs, sorted. */
export function differingFields(
  expected: Readonly<Record<string, JsonValue>>,
  actual: Readonly<Record<string, JsonValue>>,
): string[] {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  return names.filter((name) => canonicalJson(expected[name]) !== canonicalJson(actual[name]));
}
