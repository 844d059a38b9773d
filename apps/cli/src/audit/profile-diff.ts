// Two first GetProfile answers compared field by field (opaque protocol, endpoint, routes, retry
// budget, dst overrides, refs), in proto JSON names.
import {
  type DestinationProfile,
  DestinationProfileSchema,
  type JsonValue,
  toJson,
} from "@destination/proto";
import { differingFields } from "./canonical-json.js";

const asJson = (profile: DestinationProfile | undefined): Record<string, JsonValue> =>
  profile === undefined
    ? {}
    : (toJson(DestinationProfileSchema, profile) as Record<string, JsonValue>);

/** The fields on which `actual` (the audited server's) differs from `expected`; silence is `{}`. */
export function diffProfiles(
  expected: DestinationProfile | undefined,
  actual: DestinationProfile | undefined,
): string[] {
  const fields = differingFields(asJson(expected), asJson(actual));
  // One side silent, the other not: say so even when the answer is the empty profile.
  if (fields.length === 0 && (expected === undefined) !== (actual === undefined)) {
    return [expected === undefined ? "(unexpected profile)" : "(no profile)"];
  }
  return fields;
}
