// Two first GetProfile answers compared field by field (opaque protocol, endpoint, routes, retry
// budget, dst overrides, refs), in proto JSON names.
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  differingFields,
} from "@destination/proto";

/** The fields on which `actual` (the audited server's) differs from `expected`; silence is `{}`. */
export function diffProfiles(
  expected: DestinationProfile | undefined,
  actual: DestinationProfile | undefined,
): string[] {
  const empty = create(DestinationProfileSchema);
  const fields = differingFields(DestinationProfileSchema, expected ?? empty, actual ?? empty);
  // One side silent, the other not: say so even when the answer is the empty profile.
  if (fields.length === 0 && (expected === undefined) !== (actual === undefined)) {
    return [expected === undefined ? "(unexpected profile)" : "(no profile)"];
  }
  return fields;
}
