// Two first answers to one Get, compared endpoint by endpoint as a proxy sees them: by `ip:port`,
// on every field of the `WeightedAddr` (weight, identity, protocol hint and opaque transport,
// authority override, metric labels with the zone) and on the set's labels.
import {
  equals,
  type JsonValue,
  toJson,
  type Update,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";
import { endpointKey } from "../endpoints/endpoint-key.js";
import { EndpointSet } from "../endpoints/endpoint-set.js";

/** One endpoint on which the two answers disagree. */
export interface EndpointDifference {
  readonly address: string;
  /** What the reference answers (absent for an extra endpoint). */
  readonly expected?: WeightedAddr;
  /** What the audited server answers (absent for a missing endpoint). */
  readonly actual?: WeightedAddr;
  /** For a changed endpoint: the proto JSON names of the fields that differ, `setLabels` too. */
  readonly fields: readonly string[];
}

export interface EndpointDiff {
  /** The reference has them, the audited server does not. */
  readonly missing: readonly EndpointDifference[];
  /** The audited server has them, the reference does not. */
  readonly extra: readonly EndpointDifference[];
  readonly changed: readonly EndpointDifference[];
}

interface Held {
  readonly endpoints: ReadonlyMap<string, WeightedAddr>;
  readonly setLabels: Readonly<Record<string, string>>;
}

/** A first answer as a proxy holds it; `undefined` (a silent stream) holds nothing. */
function held(update: Update | undefined): Held {
  if (update === undefined) return { endpoints: new Map(), setLabels: {} };
  const view = new EndpointSet().apply(update);
  const endpoints = new Map(
    view.rows
      .filter((row) => row.mark !== "removed")
      .map((row) => [endpointKey(row.endpoint.addr), row.endpoint]),
  );
  return { endpoints, setLabels: view.setLabels };
}

/** JSON with object keys sorted, so that label order never counts as a difference. */
function canonical(value: JsonValue | undefined): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

function differingFields(expected: WeightedAddr, actual: WeightedAddr): string[] {
  const want = toJson(WeightedAddrSchema, expected) as Record<string, JsonValue>;
  const have = toJson(WeightedAddrSchema, actual) as Record<string, JsonValue>;
  const names = [...new Set([...Object.keys(want), ...Object.keys(have)])].sort();
  return names.filter((name) => canonical(want[name]) !== canonical(have[name]));
}

/** How `actual` (the audited server's first answer) differs from `expected` (the reference's). */
export function diffEndpoints(
  expected: Update | undefined,
  actual: Update | undefined,
): EndpointDiff {
  const want = held(expected);
  const have = held(actual);
  // The set labels travel with every endpoint of an add; a proxy labels each endpoint with them.
  const setLabelsDiffer =
    canonical(want.setLabels as JsonValue) !== canonical(have.setLabels as JsonValue);
  const missing: EndpointDifference[] = [];
  const extra: EndpointDifference[] = [];
  const changed: EndpointDifference[] = [];
  for (const [address, endpoint] of want.endpoints) {
    const other = have.endpoints.get(address);
    if (other === undefined) {
      missing.push({ address, expected: endpoint, fields: [] });
      continue;
    }
    if (equals(WeightedAddrSchema, endpoint, other) && !setLabelsDiffer) continue;
    const fields = differingFields(endpoint, other);
    if (setLabelsDiffer) fields.push("setLabels");
    changed.push({ address, expected: endpoint, actual: other, fields });
  }
  for (const [address, endpoint] of have.endpoints) {
    if (!want.endpoints.has(address)) extra.push({ address, actual: endpoint, fields: [] });
  }
  return { missing, extra, changed };
}
