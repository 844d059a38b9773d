// Two first answers to one Get, compared endpoint by endpoint as a proxy holds them: proto's
// `compareEndpointViews`, the comparison the server's self-audit makes too.
import {
  compareEndpointViews,
  EndpointView,
  type Update,
  type WeightedAddr,
} from "@destination/proto";

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

/** A first answer as a proxy holds it; `undefined` (a silent stream) holds nothing. */
const held = (update: Update | undefined) =>
  update === undefined ? new EndpointView() : new EndpointView().apply(update);

/** How `actual` (the audited server's first answer) differs from `expected` (the reference's). */
export function diffEndpoints(
  expected: Update | undefined,
  actual: Update | undefined,
): EndpointDiff {
  const d = compareEndpointViews(held(expected), held(actual));
  const named = (e: (typeof d.missing)[number]): EndpointDifference => ({
    address: e.address,
    ...(e.expected === undefined ? {} : { expected: e.expected.addr }),
    ...(e.held === undefined ? {} : { actual: e.held.addr }),
    fields: e.fields,
  });
  return {
    missing: d.missing.map(named),
    extra: d.extra.map(named),
    changed: d.changed.map(named),
  };
}
