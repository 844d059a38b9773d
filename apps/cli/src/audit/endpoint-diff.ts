// Two first answers to one Get, compared endpoint by endpoint as a proxy holds them: proto's
// `compareEndpointViews`, the comparison the server's self-audit makes too. "Held" is what the
// audited server answers, "expected" what the reference answers.
import {
  compareEndpointViews,
  EndpointView,
  type EndpointViewDifferences,
  type Update,
} from "@destination/proto";

/** A first answer as a proxy holds it; `undefined` (a silent stream) holds nothing. */
const held = (update: Update | undefined) =>
  update === undefined ? new EndpointView() : new EndpointView().apply(update);

/** How `actual` (the audited server's first answer) differs from `expected` (the reference's). */
export function diffEndpoints(
  expected: Update | undefined,
  actual: Update | undefined,
): EndpointViewDifferences {
  return compareEndpointViews(held(expected), held(actual));
}
