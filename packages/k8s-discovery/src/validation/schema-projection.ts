import type * as v from "valibot";

// What the cache keeps of an object is read off its schema (object-schemas.ts), so a field is
// declared once. An object schema keeps exactly the fields it names, each as its own schema
// keeps it, unless it is marked `keptWhole`: then it and everything in it are kept as they came,
// but for fields marked `keptAs`. A value of the wrong shape (a string where the schema wants an
// object, an object where it wants a list) is kept as it came, for validation to name.

type Projection = (value: unknown) => unknown;

interface SchemaNode {
  readonly type: string;
  readonly wrapped?: SchemaNode;
  readonly item?: SchemaNode;
  readonly entries?: Readonly<Record<string, SchemaNode>>;
}

const whole = new WeakSet<object>();
const custom = new WeakMap<object, Projection>();
/** Whether a schema has a `keptAs` in it, by schema: kept-whole values skip what has none. */
const hooked = new WeakMap<object, boolean>();

/** Marks an object schema kept as it came, with all it holds, but for its `keptAs` fields. */
export function keptWhole<T extends object>(schema: T): T {
  whole.add(schema);
  return schema;
}

/**
 * Marks a schema whose value (neither absent nor null) is kept as `project` gives it;
 * `undefined` leaves the field out.
 */
export function keptAs<T extends object>(schema: T, project: Projection): T {
  custom.set(schema, project);
  return schema;
}

/** How a schema's value is kept: its named fields, whole, or by a function of its own. */
export function keptHow(schema: object): "named" | "whole" | "custom" {
  return custom.has(schema) ? "custom" : whole.has(schema) ? "whole" : "named";
}

/** What the cache keeps of `value`, read as `schema` says. Shares what it does not change. */
export function projectBySchema(schema: v.GenericSchema, value: unknown): unknown {
  return project(schema as unknown as SchemaNode, value, false);
}

function project(schema: SchemaNode, value: unknown, inWhole: boolean): unknown {
  if (value === null || value === undefined) return value;
  const own = custom.get(schema);
  if (own !== undefined) return own(value);
  if (inWhole && !hasHook(schema)) return value;
  switch (schema.type) {
    case "optional":
    case "nullish":
    case "nullable":
      return project(schema.wrapped as SchemaNode, value, inWhole);
    case "array":
      return Array.isArray(value) ? projectList(schema.item as SchemaNode, value, inWhole) : value;
    case "object": {
      if (typeof value !== "object") return value;
      const entries = schema.entries ?? {};
      const from = value as Record<string, unknown>;
      return inWhole || whole.has(schema)
        ? projectWhole(entries, from)
        : projectNamed(entries, from);
    }
    default:
      return value;
  }
}

function projectList(item: SchemaNode, list: readonly unknown[], inWhole: boolean): unknown {
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const projected = project(item, list[i], inWhole);
    if (projected !== list[i] && out === undefined) out = list.slice(0, i);
    out?.push(projected);
  }
  return out ?? list;
}

function projectNamed(
  entries: Readonly<Record<string, SchemaNode>>,
  from: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in entries) {
    const projected = project(entries[key] as SchemaNode, from[key], false);
    if (projected !== undefined) out[key] = projected;
  }
  return out;
}

/** `from` itself unless a named field changes; a field projected to `undefined` is left out. */
function projectWhole(
  entries: Readonly<Record<string, SchemaNode>>,
  from: Record<string, unknown>,
): Record<string, unknown> {
  let changed: Map<string, unknown> | undefined;
  for (const key in entries) {
    const value = from[key];
    const projected = project(entries[key] as SchemaNode, value, true);
    if (projected === value) continue;
    changed ??= new Map();
    changed.set(key, projected);
  }
  if (changed === undefined) return from;
  // Built afresh rather than copied and `delete`d from, which leaves a slow dictionary object.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (!changed.has(key)) out[key] = from[key];
    else if (changed.get(key) !== undefined) out[key] = changed.get(key);
  }
  return out;
}

function hasHook(schema: SchemaNode): boolean {
  let found = hooked.get(schema);
  if (found === undefined) {
    const inner = [schema.wrapped, schema.item, ...Object.values(schema.entries ?? {})];
    found = custom.has(schema) || inner.some((s) => s !== undefined && hasHook(s));
    hooked.set(schema, found);
  }
  return found;
}
