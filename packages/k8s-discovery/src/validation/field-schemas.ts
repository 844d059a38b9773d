import * as v from "valibot";

// The valibot schemas the object schemas are built from. They only test types: what they
// output is never used, the objects are kept as they came.

/** A field that may be absent or `null`, as the API server writes an unset field. */
export const optionalString = v.nullish(v.string());
export const optionalBoolean = v.nullish(v.boolean());
export const optionalNumber = v.nullish(v.number());

/** `metadata.name`: a string, and not an empty one. */
export const nonEmptyString = v.pipe(v.string(), v.nonEmpty());

/** Ports, and any other whole number; NaN and Infinity are not one. */
export const port = v.pipe(v.number(), v.integer());
export const optionalPort = v.nullish(port);
/** A port by number or by name (`targetPort`, a Server's `port`). */
export const optionalPortOrName = v.nullish(v.union([port, v.string()]));

/**
 * Labels, annotations and selectors: an object of strings. They are read by key, so an array is
 * refused, which valibot's record takes; keys that are not the object's own, and `__proto__`,
 * `prototype` and `constructor`, are not looked at.
 */
export const stringMap = v.pipe(
  v.custom<unknown>((value) => !Array.isArray(value), "expected Object, got Array"),
  v.record(v.string(), v.string()),
);
export const optionalStringMap = v.nullish(stringMap);

/** An array of `item`s, or absent, or `null`. */
export function optionalList<T extends v.GenericSchema>(item: T) {
  return v.nullish(v.array(item));
}
