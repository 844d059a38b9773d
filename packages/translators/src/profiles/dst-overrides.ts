import type { ServiceProfile } from "@destination/core";
import { QuantityError, quantityToWeight } from "@destination/go-compat";
import { create, type WeightedDst, WeightedDstSchema } from "@destination/proto";
import { TranslationError } from "../translation-error.js";
import { completeAuthority } from "./authority.js";
import { listField, stringField } from "./spec-fields.js";

type DstOverrideSpecs = NonNullable<ServiceProfile["spec"]>["dstOverrides"];

/**
 * Traffic-split backends (README "Traffic splits"): authorities completed with the requested
 * port, weights in decimilli. `backend_ref` is never set.
 * @throws TranslationError for a null entry or a weight that is not a quantity
 */
export function toDstOverrides(overrides: DstOverrideSpecs, port: number): WeightedDst[] {
  return listField(overrides, "dstOverrides").map((dst, i) => {
    // Upstream crashes on a null entry; here, as for a null route, it fails the profile.
    if (dst == null) throw new TranslationError(`dstOverrides[${i}] is null`);
    const authority = completeAuthority(stringField(dst.authority, "dstOverrides.authority"), port);
    let weight = 0;
    if (dst.weight != null) {
      try {
        weight = quantityToWeight(dst.weight);
      } catch (err) {
        if (err instanceof QuantityError) throw new TranslationError(err.message);
        throw err;
      }
    }
    return create(WeightedDstSchema, { authority, weight });
  });
}
