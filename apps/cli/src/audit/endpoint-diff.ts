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
import { canonicalJson, differingFields } from "./canonical-json.js";

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

function fieldsOf(expected: WeightedAddr, actual: WeightedAddr): string[] {
  return differingFields(
    toJson(WeightedAddrSchema, expected) as Record<string, JsonValue>,
    toJson(WeightedAddrSchema, actual) as Record<string, JsonValue>,
  );
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
    canonicalJson(want.setLabels as JsonValue) !== canonicalJson(have.setLabels as JsonValue);
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
    const fields = fieldsOf(endpoint, other);
    if (setLabelsDiffer) fields.push("setLabels");
    changed.push({ address, expected: endpoint, actual: other, fields });
  }
  for (const [address, endpoint] of have.endpoints) {
    if (!want.endpoints.has(address)) extra.push({ address, actual: endpoint, fields: [] });
  }
  return { missing, extra, changed };
}
