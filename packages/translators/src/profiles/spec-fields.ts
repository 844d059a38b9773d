// ServiceProfiles reach us as plain JSON, checked by nobody when they come from a manifests
// folder. Upstream's typed decoding rejects a wrongly typed field outright; these helpers turn
// the same cases into a TranslationError, so the profile is logged and skipped instead.
import { TranslationError } from "../contracts.js";

/** A string field; absent or null reads as "". */
export function stringField(value: unknown, field: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new TranslationError(`${field} must be a string`);
  return value;
}

/** A boolean field; absent or null reads as false. */
export function boolField(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") throw new TranslationError(`${field} must be a boolean`);
  return value;
}

/** A uint32 field; absent or null reads as 0. */
export function uint32Field(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new TranslationError(`${field} must be an integer between 0 and 4294967295`);
  }
  return value;
}

/** A float32 field; absent or null reads as 0. */
export function float32Field(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    Math.abs(value) > 3.4028234663852886e38
  ) {
    throw new TranslationError(`${field} must be a 32-bit float`);
  }
  return value;
}

/** A list field; absent or null reads as empty. */
export function listField<T>(value: readonly T[] | null | undefined, field: string): readonly T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new TranslationError(`${field} must be a list`);
  return value;
}
