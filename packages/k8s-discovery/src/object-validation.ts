import type { ResourceKind } from "./resource-kind.js";
import { OBJECT_SCHEMAS, TYPED_OBJECT_SCHEMAS } from "./validation/object-schemas.js";
import { schemaProblem } from "./validation/problem.js";

/**
 * The first problem that keeps `value` from being a `kind` the watchers can read, as
 * `path: message` (`spec.ports[0].port: expected number, got "80"`), or undefined when it is one.
 */
export function objectProblem(kind: ResourceKind, value: unknown): string | undefined {
  return schemaProblem(OBJECT_SCHEMAS[kind], value);
}

/**
 * `objectProblem` for an object read from protobuf, whose fields have their schema's types
 * already: only what the wire leaves open is checked (an empty name, an endpoint without
 * addresses). Checking the rest again was a twentieth of a start's CPU on 10k pods.
 */
export function typedObjectProblem(kind: ResourceKind, value: unknown): string | undefined {
  return schemaProblem(TYPED_OBJECT_SCHEMAS[kind] ?? OBJECT_SCHEMAS[kind], value);
}

/** `namespace/name` (or `name`) of something that may not even have metadata. */
export function describeObject(value: unknown): string {
  const meta = (value as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  const name = typeof meta?.name === "string" ? meta.name : "<no name>";
  return typeof meta?.namespace === "string" && meta.namespace !== ""
    ? `${meta.namespace}/${name}`
    : name;
}
