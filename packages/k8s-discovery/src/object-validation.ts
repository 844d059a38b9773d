import * as v from "valibot";
import type { ResourceKind } from "./resource-kind.js";
import { OBJECT_SCHEMAS, TYPED_OBJECT_SCHEMAS } from "./validation/object-schemas.js";

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

// Only the first problem is reported, so valibot may stop at it.
const FIRST_ISSUE_ONLY = { abortEarly: true } as const;

/**
 * The first problem that keeps `value` from passing `schema`, as `path: message`, or undefined
 * when it passes.
 */
export function schemaProblem(schema: v.GenericSchema, value: unknown): string | undefined {
  const result = v.safeParse(schema, value, FIRST_ISSUE_ONLY);
  return result.success ? undefined : problemText(result.issues[0]);
}

/**
 * `spec.ports[0].port: expected number, got "80"`: where the issue is (`the object` for the
 * root), and what was wrong. A wrong type reads `expected X, got Y`, or `missing` when nothing
 * was there; a value of the right type that failed a further test (a number that is not an
 * integer, an empty name) keeps valibot's message. The message is cut short: a received value
 * is quoted whole, and a huge one would drown the log line.
 */
export function problemText(issue: v.BaseIssue<unknown>): string {
  const text =
    issue.kind !== "schema" || issue.type === "custom"
      ? issue.message
      : issue.received === "undefined"
        ? "missing"
        : `expected ${issue.expected}, got ${issue.received}`;
  const message = text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
  return `${problemPath(issue.path)}: ${message}`;
}

const MAX_MESSAGE = 160;

function problemPath(path: readonly { readonly key: unknown }[] | undefined): string {
  let out = "";
  for (const { key } of path ?? []) {
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "the object" : out;
}
