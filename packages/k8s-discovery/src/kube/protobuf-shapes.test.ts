import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { PodSchema, ServiceSchema } from "../gen/k8s/core/v1/core_pb.js";
import { EndpointSliceSchema } from "../gen/k8s/discovery/v1/discovery_pb.js";
import { OBJECT_SCHEMAS } from "../validation/object-schemas.js";
import { keptHow } from "../validation/schema-projection.js";

// The protobuf readers give what the projection of the same object's JSON gives (proven on the
// fixtures in protobuf-list-items.test.ts); this proves it for every field: proto/ declares
// each field the schema names, with a matching type, and where the schema keeps exactly its
// named fields, nothing else. Adding a field to a schema without proto/ (or the reverse) fails.

interface SchemaNode {
  readonly type: string;
  readonly wrapped?: SchemaNode;
  readonly item?: SchemaNode;
  readonly entries?: Readonly<Record<string, SchemaNode>>;
}

const unwrap = (s: SchemaNode): SchemaNode =>
  s.type === "optional" || s.type === "nullish" || s.type === "nullable"
    ? unwrap(s.wrapped as SchemaNode)
    : s;

const NUMBERS = new Set([ScalarType.INT32, ScalarType.INT64, ScalarType.UINT32, ScalarType.UINT64]);

/**
 * The mismatches between an object schema and a message, as `path: what`. In what is kept whole
 * the message may declare more (it is then kept whole as proto/ declares it: the fixtures show
 * the same objects come out).
 */
function mismatches(
  schema: SchemaNode,
  message: DescMessage,
  path: string,
  inWhole: boolean,
  top = false,
): string[] {
  const whole = inWhole || keptHow(schema) === "whole";
  const out: string[] = [];
  const fields = new Map(message.fields.map((f) => [f.jsonName, f]));
  // apiVersion and kind are the envelope's, not the message's.
  const names = Object.keys(schema.entries ?? {}).filter(
    (k) => !(top && (k === "apiVersion" || k === "kind")),
  );
  for (const name of names) {
    const field = fields.get(name);
    if (field === undefined) out.push(`${path}${name}: not in proto/`);
    else {
      const entry = schema.entries?.[name] as SchemaNode;
      out.push(...fieldMismatches(entry, field, `${path}${name}`, whole));
    }
  }
  if (!whole) {
    for (const name of fields.keys()) {
      if (!names.includes(name)) out.push(`${path}${name}: in proto/, not in the schema`);
    }
  }
  return out;
}

function fieldMismatches(
  entry: SchemaNode,
  field: DescField,
  path: string,
  inWhole: boolean,
): string[] {
  const schema = unwrap(entry);
  // managedFields: kept as a function of the entries gives it (its own tests say how).
  if (keptHow(entry) === "custom") return [];
  if (field.fieldKind === "list") {
    if (schema.type !== "array") return [`${path}: a list in proto/, ${schema.type} in the schema`];
    const item = unwrap(schema.item as SchemaNode);
    if (field.listKind === "message") {
      return mismatches(item, field.message, `${path}[].`, inWhole);
    }
    if (field.listKind === "scalar") return scalarMismatch(item, field.scalar, `${path}[]`);
    return [`${path}: a list of ${field.listKind} in proto/`];
  }
  if (field.fieldKind === "map")
    return schema.type === "custom" ? [] : [`${path}: a map in proto/`];
  if (field.fieldKind === "message") {
    // IntOrString is a number or a name, as the schema's union says; a Time, a string.
    const wanted = { IntOrString: "union", Time: "string" }[field.message.name] ?? "object";
    if (schema.type !== wanted) return [`${path}: ${field.message.name} in proto/, ${schema.type}`];
    return wanted === "object" ? mismatches(schema, field.message, `${path}.`, inWhole) : [];
  }
  if (field.fieldKind === "scalar") return scalarMismatch(schema, field.scalar, path);
  return [`${path}: a ${field.fieldKind} in proto/`];
}

function scalarMismatch(schema: SchemaNode, scalar: ScalarType, path: string): string[] {
  const expected =
    scalar === ScalarType.STRING
      ? "string"
      : scalar === ScalarType.BOOL
        ? "boolean"
        : NUMBERS.has(scalar)
          ? "number"
          : `scalar ${scalar}`;
  return schema.type === expected ? [] : [`${path}: ${expected} in proto/, ${schema.type}`];
}

const READ_FROM_PROTOBUF = [
  ["Pod", PodSchema],
  ["Service", ServiceSchema],
  ["EndpointSlice", EndpointSliceSchema],
] as const;

describe("proto/ and the object schemas", () => {
  it.each(READ_FROM_PROTOBUF)("declare the same fields of a %s", (kind, message) => {
    const schema = OBJECT_SCHEMAS[kind] as unknown as SchemaNode;
    expect(mismatches(schema, message, "", false, true)).toEqual([]);
  });
});
