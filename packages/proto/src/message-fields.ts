// Which fields two messages disagree on, as a person comparing two answers reads them: by proto
// JSON name, with map entries in any order counting as equal (metric labels arrive unordered).
import { type DescMessage, type JsonValue, type MessageShape, toJson } from "@bufbuild/protobuf";

/** The top-level fields of `a` and `b` (one schema) whose proto JSON differs, sorted. */
export function differingFields<Desc extends DescMessage>(
  schema: Desc,
  a: MessageShape<Desc>,
  b: MessageShape<Desc>,
): string[] {
  const ja = toJson(schema, a) as Record<string, JsonValue>;
  const jb = toJson(schema, b) as Record<string, JsonValue>;
  const names = [...new Set([...Object.keys(ja), ...Object.keys(jb)])].sort();
  return names.filter((name) => canonicalJson(ja[name]) !== canonicalJson(jb[name]));
}

/** JSON with object keys sorted. */
function canonicalJson(value: JsonValue | undefined): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}
